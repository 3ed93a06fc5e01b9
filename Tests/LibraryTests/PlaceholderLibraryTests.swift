import Testing

@Test func placeholderLibrary() { #expect(Bool(true)) }
