import Testing
import TestSupport

/// `--demo` answers what a message asks for in plain words, so a newcomer's first questions show what llmster draws.
@Suite struct DemoAnswerTests {
    @Test func aTableAndCodeAskedForAreInTheAnswer() throws {
        let cli = try CLI(server: "http://127.0.0.1:9")
        let asked = try cli.run(["--demo", "ask", "Show me a table and some code"])
        #expect(asked.status == 0, "\(asked)")
        #expect(asked.output.contains("| Model | Size |") && asked.output.contains("```python"), "\(asked.output)")
        let plain = try cli.run(["--demo", "ask", "hello there"])
        #expect(!plain.output.contains("| Model |") && plain.output.contains("Ask for a *table*"), "\(plain.output)")
    }
}
