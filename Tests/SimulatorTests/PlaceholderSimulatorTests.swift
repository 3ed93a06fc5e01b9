import Testing

@Test func placeholderSimulator() { #expect(Bool(true)) }
