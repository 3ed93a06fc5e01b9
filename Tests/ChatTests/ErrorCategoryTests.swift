import Foundation
import HTTP
import LMStudio
import SystemSupport
import Testing

@testable import Chat

/// Every failure llmster reports has a category a face can act on: the exit status, rpc's `kind`.
struct ErrorCategoryTests {
    /// Every public error type in Sources (the simulator's aside, which only tests see) is a `CategorizedError`,
    /// in its declaration or an extension, so none falls through to `internal`.
    @Test func everyErrorTypeLlmsterThrowsSaysItsCategory() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../Sources")
        let enumerator = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var text = ""
        for case let url as URL in enumerator where url.pathExtension == "swift" && !url.path.contains("/Simulator/") {
            text += try String(contentsOf: url, encoding: .utf8) + "\n"
        }
        let declaration = try Regex(#"(?m)^public (?:enum|struct|final class) (\w+): ([^{]*)\{"#)
        var errorTypes: [String] = []
        var conforming: Set<String> = []
        for match in text.matches(of: declaration) {
            let name = String(match.output[1].substring ?? "")
            let inherited = (match.output[2].substring ?? "").split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            if inherited.contains("Error") || inherited.contains("CategorizedError") { errorTypes.append(name) }
            if inherited.contains("CategorizedError") { conforming.insert(name) }
        }
        for match in text.matches(of: try Regex(#"(?m)^extension (\w+): CategorizedError"#)) {
            conforming.insert(String(match.output[1].substring ?? ""))
        }
        #expect(errorTypes.count >= 20, "the scan found the error types: \(errorTypes)")
        #expect(errorTypes.filter { !conforming.contains($0) } == [], "error types without a category")
    }

    @Test func errorsOfTheLowerModulesHaveTheirCategory() {
        #expect(ErrorCategory(of: HTTPError.timedOut(url: "http://x", phase: .connect)) == .unreachable)
        #expect(ErrorCategory(of: ContextError.notFound("a.txt")) == .notFound)
        #expect(ErrorCategory(of: ContextError.fetch("https://x", reason: "down")) == .unreachable)
        #expect(ErrorCategory(of: ImageInputError.tooLarge("a.png", limit: 1)) == .invalid)
        #expect(ErrorCategory(of: SystemCallError(call: "write", code: ENOSPC)) == .storage)
        #expect(ErrorCategory(of: CancellationError()) == .cancelled)
        #expect(ErrorCategory(of: CocoaError(.fileNoSuchFile)) == .internal)
    }
}
