import Foundation
import TestSupport

/// Runs the built `llmster` in a sandbox against a simulator.
struct CLI {
    let sandbox: Sandbox
    let server: String
    var extraEnvironment: [String: String] = [:]

    init(server: String, environment: [String: String] = [:]) throws {
        sandbox = try Sandbox()
        self.server = server
        extraEnvironment = environment
    }

    /// The same sandbox, with `environment` instead.
    init(sandboxOf other: CLI, environment: [String: String]) {
        sandbox = other.sandbox
        server = other.server
        extraEnvironment = environment
    }

    var environment: [String: String] { sandbox.environment(server: server, extra: extraEnvironment) }

    /// Runs `llmster ARGUMENTS` to completion.
    func run(_ arguments: [String], input: String? = nil) async throws -> ProcessResult {
        try await ProcessRunner.run(try BuiltProduct.path("llmster"), arguments, environment: environment, input: input)
    }

    /// Starts `llmster ARGUMENTS` without waiting.
    func start(_ arguments: [String]) throws -> RunningProcess {
        try ProcessRunner.start(try BuiltProduct.path("llmster"), arguments, environment: environment)
    }
}
