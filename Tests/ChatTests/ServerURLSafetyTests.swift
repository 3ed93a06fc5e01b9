import Chat
import Testing

@Suite struct ServerURLSafetyTests {
    @Test(arguments: [
        (
            "not reachable at http://ann:hunter2@host:1234 (refused)",
            "not reachable at http://ann:***@host:1234 (refused)"
        ),
        ("'https://u:p:q@h/x' and http://h:1/", "'https://u:***@h/x' and http://h:1/"),
        ("http://token@host plain", "http://token@host plain"),
        ("no URL here", "no URL here")
    ])
    func passwordsInServerAddressesAreHidden(text: String, shown: String) {
        #expect(ServerURL.redactingPasswords(in: text) == shown)
    }

    @Test(arguments: [
        ("http://[::1]:99999", false), ("http://h:0", false), ("http://h:port", false), ("http://h:", false),
        ("http://[::1]:1234/api", true), ("http://[::1]", true), ("https://a:b@h:65535", true), ("http://h/x:9", true)
    ])
    func portsMustBeFrom1To65535(url: String, valid: Bool) {
        #expect(ServerURL.hasValidPort(url) == valid)
    }
}
