import Testing

@Test func placeholderHTTP() { #expect(Bool(true)) }
