import Testing

@Test func placeholderChat() { #expect(Bool(true)) }
