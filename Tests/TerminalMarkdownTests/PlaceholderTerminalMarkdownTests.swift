import Testing

@Test func placeholderTerminalMarkdown() { #expect(Bool(true)) }
