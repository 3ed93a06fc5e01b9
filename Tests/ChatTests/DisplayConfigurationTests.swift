import Testing

@testable import Chat

/// The display keys: `theme`, `hyperlinks`, `width_mode`, `code_fences`.
struct DisplayConfigurationTests {
    @Test func displayKeysAreReadAndRefusedOutsideTheirChoices() throws {
        let configuration = try Configuration(
            parsing: "theme = light\nhyperlinks = never\nwidth_mode = grapheme\ncode_fences = show\n")
        #expect(configuration.theme == "light")
        #expect(try configuration.value(forKey: "hyperlinks") == "never")
        #expect(configuration.widthMode == "grapheme")
        #expect(configuration.codeFences == "show")
        var edited = configuration
        #expect(throws: ConfigurationError.self) { try edited.setValue("solarized", forKey: "theme") }
        #expect(throws: ConfigurationError.self) { try edited.setValue("sometimes", forKey: "hyperlinks") }
        #expect(Configuration().codeFences == "hide" && Configuration().theme == "auto")
    }
}
