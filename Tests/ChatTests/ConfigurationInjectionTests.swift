import Chat
import Foundation
import Testing

/// A value or key can never add lines to the configuration file.
@Suite struct ConfigurationInjectionTests {
    static let hostileValues = [
        "acme\ninteg = x", "acme\rintegration.evil = https://evil.example", "a\u{0}b", "a\u{1B}[2Jb", "a\u{85}b",
        "a\u{9B}b", "a\u{2028}b"
    ]

    @Test(arguments: hostileValues)
    func aValueWithAControlCharacterIsRefusedWithTheKeyNamed(value: String) {
        var configuration = Configuration()
        #expect(throws: ConfigurationError.controlCharacter(key: "default_model")) {
            try configuration.setValue(value, forKey: "default_model")
        }
        #expect(configuration.defaultModel == nil)
        let message = String(describing: ConfigurationError.controlCharacter(key: "default_model"))
        #expect(message.contains("default_model") && message.contains("control character"))
    }

    @Test(arguments: [
        "default_model\n", "integration.a\nserver", "integration.a b", "integration.a=b", "integration.#x",
        "integration.é"
    ])
    func aKeyOutsideTheKnownSetIsRefused(key: String) {
        var configuration = Configuration()
        #expect(throws: ConfigurationError.self) { try configuration.setValue("mcp/playwright", forKey: key) }
        #expect(configuration.integrations.isEmpty)
    }

    @Test func integrationNamesMayUseLettersDigitsDashesAndUnderscores() throws {
        var configuration = Configuration()
        try configuration.setValue("mcp/playwright", forKey: "integration.Web_browser-2")
        #expect(configuration.integrations["Web_browser-2"]?.target == "mcp/playwright")
    }

    @Test func savingRefusesAControlCharacterSetInCodeAndLeavesTheFileAlone() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "llmster-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("config").path
        try Configuration().save(path: path)
        let before = try String(contentsOfFile: path, encoding: .utf8)
        var configuration = Configuration()
        configuration.defaultModel = "m\nintegration.evil = https://evil.example"
        #expect(throws: ConfigurationError.controlCharacter(key: "default_model")) {
            try configuration.save(path: path)
        }
        configuration.defaultModel = nil
        configuration.integrations["docs"] = IntegrationSetting(
            name: "docs", target: "https://a", allowedTools: ["x\ny"])
        #expect(throws: ConfigurationError.controlCharacter(key: "integration.docs.allowed_tools")) {
            try configuration.save(path: path)
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == before)
    }
}
