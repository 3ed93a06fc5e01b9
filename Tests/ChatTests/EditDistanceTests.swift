import Chat
import Testing

@Suite struct EditDistanceTests {
    @Test(arguments: [
        ("aks", "ask", 1), ("modle", "model", 1), ("modle", "models", 2), ("ca", "abc", 3),
        ("", "abc", 3), ("kitten", "sitting", 3), ("tiny-caht", "tiny-chat", 1)
    ])
    func swapsOfAdjacentCharactersWeighOne(a: String, b: String, distance: Int) {
        #expect(EditDistance.between(a, b) == distance)
        #expect(EditDistance.between(b, a) == distance)
    }

    @Test func theClosestNameWins() {
        #expect(EditDistance.nearest(to: "aks", in: ["models", "ps", "ask"], maximum: 2) == "ask")
        #expect(EditDistance.nearest(to: "modle", in: ["models", "model"], maximum: 2) == "model")
        #expect(
            EditDistance.nearest(to: "acme/tiny-caht", in: ["acme/tiny-1b", "acme/tiny-chat"], maximum: 3)
                == "acme/tiny-chat")
        #expect(EditDistance.nearest(to: "zzz", in: ["ask"], maximum: 2) == nil)
    }
}
