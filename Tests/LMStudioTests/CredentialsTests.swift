import Foundation
import Testing

@testable import LMStudio

let goodToken = "sk-lm-Abc12345:abcdefghij0123456789"

/// A fresh directory to act as `XDG_CONFIG_HOME`.
func temporaryConfigHome() throws -> String {
    let path = NSTemporaryDirectory() + "llmster-credentials-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path + "/llmster", withIntermediateDirectories: true)
    return path
}

/// Writes a credentials file with the given permissions.
func writeCredentials(_ text: String, in home: String, mode: Int) throws -> String {
    let path = home + "/llmster/credentials"
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    return path
}

struct CredentialsTests {
    @Test func groupReadableFileIsRefusedNamingThePath() throws {
        let home = try temporaryConfigHome()
        let path = try writeCredentials("token = \(goodToken)\n", in: home, mode: 0o644)
        #expect(throws: CredentialsError.insecurePermissions(path: path, mode: 0o644)) {
            try Credentials.load(environment: [:], file: home + "/llmster/credentials")
        }
        let message = CredentialsError.insecurePermissions(path: path, mode: 0o644).description
        #expect(message.contains(path) && message.contains("chmod 600"))
    }

    @Test(arguments: ["token = \(goodToken)\n", "# mine\n\n\(goodToken)\n", "token=\(goodToken)"])
    func privateFileIsRead(text: String) throws {
        let home = try temporaryConfigHome()
        let path = try writeCredentials(text, in: home, mode: 0o600)
        let credentials = try Credentials.load(environment: [:], file: home + "/llmster/credentials")
        #expect(credentials?.token == goodToken && credentials?.source == .file(path))
    }

    @Test func environmentWinsOverTheFile() throws {
        let home = try temporaryConfigHome()
        _ = try writeCredentials("token = sk-lm-Zzz12345:zzzzzzzzzz0123456789\n", in: home, mode: 0o600)
        let credentials = try Credentials.load(
            environment: ["LM_API_TOKEN": goodToken], file: home + "/llmster/credentials")
        #expect(credentials?.token == goodToken && credentials?.source == .environment)
    }

    @Test func noTokenAnywhereIsNil() throws {
        #expect(try Credentials.load(environment: [:], file: try temporaryConfigHome() + "/llmster/credentials") == nil)
    }

    /// The docs give no token format: a token of another shape is used, with a warning that does not show it.
    @Test(arguments: [
        "sk-lm-short:abcdefghij0123456789", "sk-lm-Abc12345:abcdefghij012345678!",
        "sk-lm-Abc12345abcdefghij0123456789x", "lm-v2.Zx9"
    ])
    func unusualTokenShapeIsAWarningNotARefusal(token: String) throws {
        #expect(!Credentials.isWellFormed(token))
        let credentials = try #require(
            try Credentials.load(environment: ["LM_API_TOKEN": token], file: "/nonexistent/credentials"))
        #expect(credentials.token == token && !credentials.hasUsualShape)
        let warning = try #require(credentials.shapeWarning)
        #expect(warning.contains("LM_API_TOKEN") && warning.contains("sending it anyway") && !warning.contains(token))
        #expect(try Credentials(token: goodToken, source: .environment).shapeWarning == nil)
    }

    /// Only a token that cannot go in an HTTP header is refused.
    @Test(arguments: ["Bearer abc", "sk-lm-tab\there", "sk-lm-é"])
    func unsendableTokenIsRefused(token: String) {
        #expect(!Credentials.isSendable(token))
        #expect(throws: CredentialsError.malformedToken(source: "LM_API_TOKEN")) {
            try Credentials.load(environment: ["LM_API_TOKEN": token], file: "/nonexistent/credentials")
        }
    }

    @Test func savedFileIsPrivateAndReadsBack() throws {
        let home = try temporaryConfigHome()
        let path = home + "/fresh/llmster/credentials"
        try Credentials.save(token: goodToken, to: path)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try Credentials.readToken(at: path) == goodToken)
        try Credentials.save(token: "sk-lm-Zzz12345:zzzzzzzzzz0123456789", to: path)
        #expect(try Credentials.readToken(at: path) == "sk-lm-Zzz12345:zzzzzzzzzz0123456789")
        #expect(try FileManager.default.contentsOfDirectory(atPath: home + "/fresh/llmster") == ["credentials"])
    }

    @Test func tokenNeverAppearsInDescriptions() throws {
        let credentials = try Credentials(token: goodToken, source: .environment)
        #expect(!credentials.description.contains(goodToken) && !"\(credentials)".contains("abcdefghij"))
        let client = LMStudioClient(
            server: "http://localhost:1234", token: goodToken,
            transport: FakeTransport { _ in .init(status: 200, chunks: []) })
        #expect(!"\(client)".contains("abcdefghij"))
        #expect(!CredentialsError.malformedToken(source: "LM_API_TOKEN").description.contains(goodToken))
    }
}
