import Testing

@Test func placeholderEditorRPC() { #expect(Bool(true)) }
