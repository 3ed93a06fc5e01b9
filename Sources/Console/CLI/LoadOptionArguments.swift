import Chat
import Foundation
import LMStudio
import Markdown
import TerminalMarkdown

/// The load options (`load.md`) as `llmster load`, `/load` and `/model` take them.
enum LoadOptionArguments {
    /// `--context-length`, `--eval-batch-size`, `--flash-attention`, `--num-experts`, `--offload-kv-cache-to-gpu`.
    static let options: [ArgumentParser.Option] = [
        .init(
            [.contextLength], value: "N",
            help:
                "context length to load with (default: the conversation's or config's context_length, else the server's)"
        ),
        .init([.evalBatchSize], value: "N", help: "tokens evaluated per batch (llama.cpp engine)"),
        .init([.flashAttention], value: "on|off", choices: ["on", "off"], help: "flash attention (llama.cpp engine)"),
        .init([.numExperts], value: "N", help: "experts to use, for mixture-of-experts models (llama.cpp engine)"),
        .init(
            [.offloadKvCacheToGpu], value: "on|off", choices: ["on", "off"],
            help: "keep the KV cache in GPU memory (llama.cpp engine)")
    ]

    /// The options given in `arguments`; unset ones stay nil (the server's defaults).
    static func parse(_ arguments: ArgumentParser.Parsed) throws -> LoadOptions {
        func flag(_ name: OptionName) -> Bool? {
            arguments.value(name).map { $0 == "on" }
        }
        return LoadOptions(
            contextLength: try arguments.positiveInteger(.contextLength),
            evalBatchSize: try arguments.positiveInteger(.evalBatchSize), flashAttention: flag(.flashAttention),
            numExperts: try arguments.positiveInteger(.numExperts), offloadKVCacheToGPU: flag(.offloadKvCacheToGpu))
    }

    /// A step of the load policy as a line: `Unloaded X.`, `Loading X …`, `Loaded X in 1.2 s: …`.
    static func line(for step: ModelSelectionStep) -> String {
        switch step {
        case .unloaded(let instance): "Unloaded \(UntrustedText.sanitize(instance))."
        case .loading(let key): "Loading \(UntrustedText.sanitize(key)) …"
        case .loaded(let reply): loadedLine(reply)
        }
    }

    /// "Loaded KEY as ID in 1.2 s: context 8,192 · batch 512 · flash attention · KV cache on GPU", from the server's answer.
    static func loadedLine(_ reply: LoadResponse, model: String? = nil) -> String {
        let seconds = reply.loadTimeSeconds.map { String(format: " in %.1f s", $0) } ?? ""
        let named = model.map { UntrustedText.sanitize($0) + " as " } ?? ""
        let config = reply.loadConfig.map(ModelListing.configSummary).flatMap { $0.isEmpty ? nil : ": " + $0 } ?? ""
        return "Loaded \(named)\(UntrustedText.sanitize(reply.instanceId))\(seconds)\(config)."
    }
}
