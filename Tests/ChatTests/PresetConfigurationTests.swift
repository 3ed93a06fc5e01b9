import Chat
import Foundation
import Testing

/// `preset.NAME.…` lines: parsed, written back, refused when the field is unknown.
@Suite struct PresetConfigurationTests {
    @Test func presetsParseAndRoundTripThroughTheFileText() throws {
        let configuration = try Configuration(
            parsing: """
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

    @Test func templatesAndAliasesRoundTripAndAnUnknownSlotIsNamed() throws {
        let configuration = try Configuration(
            parsing: """
                preset.review.template = Review:\\n{{ stdin }}\\nFocus: {{input}}
                alias.fast = acme/tiny-1b
                default_model = fast
                """)
        let review = try #require(configuration.presets["review"])
        #expect(review.template == "Review:\n{{ stdin }}\nFocus: {{input}}")
        #expect(try Configuration(parsing: configuration.fileText) == configuration)
        #expect(
            configuration.modelKey(for: "fast") == "acme/tiny-1b" && configuration.modelKey(for: "acme/x") == "acme/x")
        #expect(
            configuration.defaultModelKey == "acme/tiny-1b" && configuration.defaultModel == "fast",
            "the file keeps what was written")
        #expect(throws: ConfigurationError.self) { try Configuration(parsing: "alias.fast = two words") }
        do {
            _ = try Configuration(parsing: "preset.review.template = {{input}} {{selection}}")
            Issue.record("an unknown slot was accepted")
        } catch {
            #expect("\(error)".contains("{{selection}} is no slot"), "\(error)")
        }
    }

    @Test(
        arguments: [
            ("T {{input}}", "hi", nil, "T hi"),
            ("T {{input}}", "hi", "piped", "T hi\n\npiped"),
            ("{{stdin}} / {{input}}", "hi", "piped", "piped / hi"),
            ("{{stdin}} / {{input}}", "hi", nil, " / hi"),
            ("No slots.", "hi", nil, "No slots.\n\nhi"),
            ("{{stdin}} only", "hi", "piped", "piped only\n\nhi"),
            ("{{input}} and {{input}}", "x", nil, "x and x"),
            ("unclosed {{input", "x", nil, "unclosed {{input\n\nx")
        ] as [(String, String, String?, String)])
    func aTemplateIsFilledLosingNothing(template: String, input: String, stdin: String?, sent: String) {
        #expect(Preset(name: "t", template: template).filled(input: input, stdin: stdin) == sent)
    }
}
