import Chat
import Foundation
import LMStudio
import Markdown
import TerminalMarkdown

/// `llmster models`, `ps`, `load` and `unload`.
enum ModelCommands {
    static let filterOptions: [ArgumentParser.Option] = [
        .init([.vision], help: "only models that read images"),
        .init([.tools], help: "only models trained for tool use"),
        .init([.reasoning], help: "only models with reasoning options"),
        .init([.loaded], help: "only loaded models"),
        .init([.embedding], help: "only embedding models (hidden otherwise: they cannot chat)"),
        .init([.all], help: "every model, embedding models too"),
        .init(
            [.sort], value: "KEY", choices: ["name", "size", "format"], help: "sort by name (default), size or format")
    ]

    static let models = Command(
        "models",
        summary: "List the server's downloaded models with their loaded state, size, format and capabilities.",
        details: """
            LOADED lists each running instance with the context it was loaded with (which may be smaller than
            MAX CTX, the model's maximum). `--json` prints a stable array of objects for scripts: key,
            display_name, type, publisher, format, params, quantization, size_bytes, max_context_length,
            loaded_instances [{id, context_length, config}], capabilities {vision, tools, reasoning: [options] or
            null, reasoning_default}, description, variants and selected_variant (null when the server lists none),
            and aliases (the alias.NAME names of the key; the table shows them after it, `acme/tiny-1b (fast)`).
            VARIANT shows the selected variant of a multi-variant model and how many there are.
            """,
        options: filterOptions + [.init([.json], help: "print JSON for scripts")]
    ) { arguments, context in
        let all = try await context.session().models()
        let shown = ModelListing.filter(all, arguments)
        if arguments.has(.json) {
            context.output.send(laidOut: ModelListing.json(shown, aliases: context.configuration.aliases))
        } else if shown.isEmpty {
            context.errors.line(
                all.isEmpty
                    ? "No models are downloaded on this server. `llmster download MODEL` fetches one."
                    : "No model matches those filters.")
        } else {
            context.output.send(
                laidOut:
                    ModelListing.table(
                        shown, width: TextLayout.outputWidth(environment: context.environment),
                        fit: context.terminal(fd: 1).textFit, aliases: context.configuration.aliases))
        }
        return ExitCode.success
    }

    static let ps = Command(
        "ps",
        summary: "List the loaded model instances with their context length and the rest of their configuration.",
        details: """
            CONFIG is what the server reports for the instance: parallel requests, evaluation batch, flash attention,
            experts and where the KV cache lives (embedding and non-llama.cpp instances list less), then any key the
            documentation does not list, by the server's name for it (physical_batch_size 512). `--json` gives
            each instance's id, model, type, context_length, size_bytes and config (the server's field names).
            """,
        options: [.init([.json], help: "print JSON for scripts")]
    ) { arguments, context in
        let models = try await context.session().models()
        let instances = models.flatMap { model in model.loadedInstances.map { (model, $0) } }
        if arguments.has(.json) {
            let objects: [JSONValue] = instances.map { model, instance in
                .object([
                    "id": .string(instance.id), "model": .string(model.key), "type": .string(model.type.rawValue),
                    "context_length": instance.config.contextLength.map { .number(Double($0)) } ?? .null,
                    "size_bytes": .number(Double(model.sizeBytes)), "config": ModelListing.configJSON(instance.config)
                ])
            }
            context.output.json(.array(objects))
            return ExitCode.success
        }
        guard !instances.isEmpty else {
            context.errors.line(
                "No model is loaded. `llmster load MODEL` loads one; a chat loads its model just in time.")
            return ExitCode.success
        }
        context.output.send(
            laidOut:
                ModelListing.instances(
                    models, width: TextLayout.outputWidth(environment: context.environment),
                    fit: context.terminal(fd: 1).textFit))
        return ExitCode.success
    }

    static let load = Command(
        "load",
        arguments: "MODEL",
        summary: "Load a model on the server (a second load of a loaded model adds an instance such as MODEL:2).",
        details: """
            Without --context-length the configured context_length applies (as for /load and rpc models/load).
            Other options not given keep the server's defaults; the batch, flash attention, experts and KV cache options
            apply to LM Studio's llama.cpp engine only. The line printed after the load is the configuration the
            server reports it applied, including settings it chose itself.
            """,
        options: LoadOptionArguments.options
    ) { arguments, context in
        guard arguments.positionals.count == 1, let named = arguments.positionals.first else {
            throw UsageError("name one model to load")
        }
        let key = context.configuration.modelKey(for: named)
        let options = try LoadOptionArguments.parse(arguments)
        let session = try context.session()
        let reply = try await LoadProgress(model: key, stream: context.errors, environment: context.environment).around
        {
            try await session.loadModel(key, conversationId: nil, options: options)
        }
        context.output.line(SanitizedMessage(untrusted: LoadOptionArguments.loadedLine(reply, model: key)))
        return ExitCode.success
    }

    static let unload = Command(
        "unload", forms: [UsageForm("INSTANCE…"), UsageForm(required: [.all])],
        summary: "Unload loaded model instances (by instance id, as `llmster ps` shows).",
        options: [.init([.all], help: "unload every loaded instance")]
    ) { arguments, context in
        var targets = arguments.positionals
        if arguments.has(.all) {
            guard targets.isEmpty else { throw UsageError("give instance ids or --all, not both") }
        } else {
            guard !targets.isEmpty else { throw UsageError("name the instances to unload, or --all") }
        }
        let session = try context.session()
        if arguments.has(.all) {
            targets = try await session.models(refresh: true).flatMap { $0.loadedInstances.map(\.id) }
            if targets.isEmpty {
                context.errors.line("No model is loaded.")
                return ExitCode.success
            }
        }
        var status = ExitCode.success
        for instance in targets {
            do {
                try await session.unloadModel(instanceId: instance)
            } catch let error as ChatError where ErrorCategory(of: error) == .notFound {
                // The others are still unloaded; the status says one was not.
                context.warn(error.description)
                status = App.exitCode(for: error)
                continue
            }
            context.output.line("Unloaded \(instance).")
        }
        return status
    }
}

/// Shows elapsed time on standard error while a model loads (the load endpoint reports no progress).
struct LoadProgress: Sendable {
    let model: String
    let stream: StandardStream
    /// The environment whose `TERM` says whether the terminal can redraw a line.
    let environment: [String: String]

    /// Runs `body`, ticking an in-place status line when standard error is a full terminal; in line mode (`TERM=dumb`,
    /// an Emacs shell buffer) one line says the load started.
    func around<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        let terminal = TerminalCapabilities.detect(fd: stream.fd, environment: environment)
        if terminal.isLineMode { stream.line("Loading \(model) …") }
        guard terminal.allowsCursorMovement else { return try await body() }
        let started = ContinuousClock.now
        let ticker = Task { [model, stream] in
            while !Task.isCancelled {
                let elapsed = ContinuousClock.now - started
                stream.send("\r\u{1B}[2KLoading \(model) … \(elapsed.seconds.formatted1) s")
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        let result = await Result(catching: { try await body() })
        ticker.cancel()
        await ticker.value
        stream.send("\r\u{1B}[2K")
        return try result.get()
    }
}

extension Result where Failure == any Error {
    /// Captures the outcome of an async throwing body.
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

extension Double {
    /// One decimal place, e.g. `12.4`.
    var formatted1: String { String(format: "%.1f", self) }
}
