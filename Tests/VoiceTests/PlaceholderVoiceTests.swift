import Testing

@Test func placeholderVoice() { #expect(Bool(true)) }
