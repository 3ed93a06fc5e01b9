import Testing

@Test func placeholderLMStudio() { #expect(Bool(true)) }
