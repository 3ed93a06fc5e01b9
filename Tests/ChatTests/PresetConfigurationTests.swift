import Chat
import Foundation
import Testing

/// `preset.NAME.…` lines: parsed, written back, refused when the field is unknown.
@Suite struct PresetConfigurationTests {
    @Test func presetsParseAndRoundTripThroughTheFileText() throws {
        let configuration = try Configuration(parsing: """
        preset.reviewer.system = You review diffs.\\nBe terse.
        preset.reviewer.model = acme/thinker-8b
        preset.reviewer.temperature = 0.2
        preset.poet.system = "Answer in verse."
        """)
        let reviewer = try #require(configuration.presets["reviewer"])
        #expect(reviewer.systemPrompt == "You review diffs.\nBe terse.")
        #expect(reviewer.model == "acme/thinker-8b")
        #expect(reviewer.settings == ["temperature": "0.2"])
        #expect(configuration.presets["poet"]?.systemPrompt == "Answer in verse.")
        #expect(try configuration.value(forKey: "preset.reviewer.temperature") == "0.2")
        #expect(try Configuration(parsing: configuration.fileText) == configuration)
    }

    @Test(arguments: ["preset.reviewer.colour = blue", "preset..system = x", "preset.bad name.system = x"])
    func anUnknownPresetFieldIsRefused(line: String) {
        #expect(throws: ConfigurationError.self) { try Configuration(parsing: line) }
    }

    @Test func clearingEveryFieldRemovesThePreset() throws {
        var configuration = try Configuration(parsing: "preset.poet.system = Answer in verse.")
        try configuration.setValue("", forKey: "preset.poet.system")
        #expect(configuration.presets.isEmpty)
    }
}
