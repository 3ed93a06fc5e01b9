import Testing

@Test func placeholderConsole() { #expect(Bool(true)) }
