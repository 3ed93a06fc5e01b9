import Chat
import Foundation
import Testing

@Suite struct ConfigurationTests {
    @Test func theShippedSampleIsValid() throws {
        let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../share/config.sample")
        let configuration = try Configuration(parsing: String(contentsOf: sample, encoding: .utf8))
        #expect(configuration.server == "http://localhost:1234")
        #expect(configuration.voiceLanguage == "en-us")
    }

    @Test func roundTripsThroughTheFileTextIncludingIntegrations() throws {
        var configuration = Configuration()
        try configuration.setValue("acme/thinker-8b", forKey: "default_model")
        try configuration.setValue("mcp/playwright", forKey: "integration.browser")
        try configuration.setValue("navigate, click", forKey: "integration.browser.allowed_tools")
        try configuration.setValue("https://docs.example.com/mcp", forKey: "integration.docs")
        let reread = try Configuration(parsing: configuration.fileText)
        #expect(reread == configuration)
        #expect(reread.integrations["browser"]?.allowedTools == ["navigate", "click"])
        #expect(reread.integrations["docs"]?.isEphemeralMCP == true)
    }

    @Test(arguments: [
        ("colour = blue", "unknown setting 'colour' on line 1"),
        (
            "keep_previous_model = true",
            "unknown setting 'keep_previous_model' on line 1 (did you mean keep_previous_models?)"
        ),
        ("markdown = sometimes", "'sometimes' is not a valid markdown"),
        ("server = localhost:1234", "expected an http:// or https:// URL"),
        ("server.lab = http://lab:99999", "expected a port from 1 to 65535 after the host"),
        ("just words", "line 1 is not `key = value`"),
        ("integration.docs.allowed_tools = a", "a line `integration.docs = …` before it")
    ])
    func badLinesSayWhatIsWrong(line: String, message: String) {
        do {
            _ = try Configuration(parsing: line)
            Issue.record("accepted \(line)")
        } catch {
            #expect(String(describing: error).contains(message))
        }
    }
}
