import LMStudio
import Markdown
import TerminalMarkdown

/// The model picker's data as a table or JSON: filters, sorts, and the columns users compare models by.
public enum ModelListing {
    /// The models that pass `--vision`, `--tools`, `--reasoning`, `--loaded` and `--embedding` (embedding models,
    /// which cannot chat, only with it or `--all`), sorted by `--sort`.
    public static func filter(_ models: [Model], _ arguments: ArgumentParser.Parsed) -> [Model] {
        let shown = models.filter { model in
            if arguments.has(.embedding) {
                if model.type != .embedding { return false }
            } else if model.type == .embedding, !arguments.has(.all) {
                return false
            }
            if arguments.has(.vision), model.capabilities?.vision != true { return false }
            if arguments.has(.tools), model.capabilities?.trainedForToolUse != true { return false }
            if arguments.has(.reasoning), !model.supportsReasoning { return false }
            if arguments.has(.loaded), !model.isLoaded { return false }
            return true
        }
        return sort(shown, by: arguments.value(.sort) ?? "name")
    }

    /// Sorts by `name`, `size` (smallest first) or `format` (then name).
    public static func sort(_ models: [Model], by key: String) -> [Model] {
        switch key {
        case "size": models.sorted { ($0.sizeBytes, $0.key) < ($1.sizeBytes, $1.key) }
        case "format": models.sorted { ($0.format ?? "~", $0.key) < ($1.format ?? "~", $1.key) }
        default: models.sorted { $0.key < $1.key }
        }
    }

    /// The capabilities column: `vision`, `tools`, `reasoning(off/low/…, default low)`.
    public static func capabilities(_ model: Model) -> String {
        var badges: [String] = []
        if model.type == .embedding { badges.append("embedding") }
        if model.capabilities?.vision == true { badges.append("vision") }
        if model.capabilities?.trainedForToolUse == true { badges.append("tools") }
        if let reasoning = model.capabilities?.reasoning {
            let fallback = reasoning.default.map { ", default " + $0 } ?? ""
            badges.append("reasoning(" + reasoning.allowedOptions.joined(separator: "/") + fallback + ")")
        }
        return badges.joined(separator: " ")
    }

    /// The loaded column: each instance id with its context, or `-`.
    public static func loadedState(_ model: Model) -> String {
        guard model.isLoaded else { return "-" }
        return model.loadedInstances.map { instance in
            instance.id + (instance.config.contextLength.map { " (ctx \(contextLabel($0)))" } ?? "")
        }.joined(separator: ", ")
    }

    /// An instance's configuration as the server reports it: "context 8,192 · parallel 4 · batch 512 · flash attention ·
    /// 8 experts · KV cache on GPU"; only what the server listed.
    public static func configSummary(_ config: InstanceConfig) -> String {
        var parts: [String] = []
        if let context = config.contextLength { parts.append("context " + Units.grouped(context)) }
        if let parallel = config.parallel { parts.append("parallel \(parallel)") }
        if let batch = config.evalBatchSize { parts.append("batch \(batch)") }
        if let flash = config.flashAttention { parts.append(flash ? "flash attention" : "no flash attention") }
        if let experts = config.numExperts { parts.append("\(experts) experts") }
        if let offload = config.offloadKVCacheToGPU { parts.append(offload ? "KV cache on GPU" : "KV cache in RAM") }
        // Keys the documentation does not list, as the server named them (`physical_batch_size 512`).
        for (key, value) in config.otherKeys.sorted(by: { $0.key < $1.key }) {
            let shown = if case .string(let text) = value { text } else { value.jsonString }
            parts.append(UntrustedText.oneLine(key + " " + String(shown.prefix(40))))
        }
        return parts.joined(separator: " · ")
    }

    /// The variant column: the selected variant's tag and how many there are, e.g. `q8_0 (of 2)`; `-` for one.
    public static func variant(_ model: Model) -> String {
        guard let variants = model.variants, let selected = model.selectedVariant else { return "-" }
        let tag = selected.split(separator: "@").last.map(String.init) ?? selected
        return variants.count > 1 ? "\(tag) (of \(variants.count))" : tag
    }

    /// 4096 → `4k`, 131072 → `128k`, 5000 → `5,000`.
    public static func contextLabel(_ tokens: Int) -> String {
        tokens % 1024 == 0 ? "\(tokens / 1024)k" : Units.grouped(tokens)
    }

    /// The `llmster models` table, laid out to `width` columns when given: capabilities and loaded instances
    /// are cut first, then VARIANT, FORMAT, QUANT, PARAMS, MAX CTX and CAPABILITIES are dropped in that order. A key
    /// that `alias.NAME` lines name is followed by its aliases, `qwen/qwen3-4b (fast)`.
    public static func table(_ models: [Model], width: Int?, fit: TextFit, aliases: [String: String] = [:]) -> String {
        // The key is kept whole (no minimum width to cut it to): the least useful columns go first.
        var table = TextTable(columns: [
            .init("MODEL", priority: 0), .init("LOADED", minimumWidth: 8, priority: 1),
            .init("SIZE", priority: 2), .init("FORMAT", priority: 7), .init("PARAMS", priority: 5),
            .init("QUANT", priority: 6),
            .init("MAX CTX", priority: 4), .init("CAPABILITIES", minimumWidth: 12, priority: 3),
            .init("VARIANT", priority: 8)
        ])
        for model in models {
            table.append([
                model.key + aliasLabel(model.key, aliases), loadedState(model), Units.bytes(model.sizeBytes),
                model.format ?? "-",
                model.paramsString ?? "-", model.quantization?.name ?? "-",
                model.maxContextLength.map(contextLabel) ?? "-", capabilities(model), variant(model)
            ])
        }
        return table.text(width: width, fit: fit)
    }

    /// The `llmster ps` and `/ps` table of loaded instances, laid out to `width` columns when given: the model key
    /// and config are cut first, then CONFIG, SIZE, MODEL and CONTEXT are dropped in that order.
    public static func instances(_ models: [Model], width: Int?, fit: TextFit) -> String {
        var table = TextTable(columns: [
            .init("INSTANCE", minimumWidth: 16, priority: 0), .init("MODEL", minimumWidth: 12, priority: 2),
            .init("CONTEXT", priority: 1), .init("SIZE", priority: 3), .init("CONFIG", minimumWidth: 12, priority: 4)
        ])
        for model in models {
            for instance in model.loadedInstances {
                var config = instance.config
                config.contextLength = nil
                let summary = configSummary(config)
                table.append([
                    instance.id, model.key, instance.config.contextLength.map { Units.grouped($0) } ?? "-",
                    Units.bytes(model.sizeBytes), summary.isEmpty ? "-" : summary
                ])
            }
        }
        return table.text(width: width, fit: fit)
    }

    /// An instance's configuration as JSON with the server's field names; fields it did not list are left out.
    public static func configJSON(_ config: InstanceConfig) -> JSONValue {
        var members: [String: JSONValue] = [:]
        func put(_ key: String, _ value: Int?) { if let value { members[key] = .number(Double(value)) } }
        func put(_ key: String, _ value: Bool?) { if let value { members[key] = .bool(value) } }
        put("context_length", config.contextLength)
        put("eval_batch_size", config.evalBatchSize)
        put("parallel", config.parallel)
        put("flash_attention", config.flashAttention)
        put("num_experts", config.numExperts)
        put("offload_kv_cache_to_gpu", config.offloadKVCacheToGPU)
        return .object(members)
    }

    /// The stable `--json` form: one object per model.
    /// ` (fast, tiny)` for a key the `aliases` name; empty for one they do not.
    static func aliasLabel(_ key: String, _ aliases: [String: String]) -> String {
        let names = aliasNames(key, aliases)
        return names.isEmpty ? "" : " (" + names.joined(separator: ", ") + ")"
    }

    /// The names in `aliases` that stand for `key`, sorted.
    static func aliasNames(_ key: String, _ aliases: [String: String]) -> [String] {
        aliases.filter { $0.value == key }.keys.sorted()
    }

    /// The `llmster models --json` array; each object's `aliases` lists the `alias.NAME` names of its key.
    public static func json(_ models: [Model], aliases: [String: String] = [:]) -> String {
        func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }
        func optional(_ number: Int?) -> JSONValue { number.map { .number(Double($0)) } ?? .null }
        let objects: [JSONValue] = models.map { model in
            .object([
                "key": .string(model.key),
                "aliases": .array(aliasNames(model.key, aliases).map(JSONValue.string)),
                "display_name": .string(model.displayName),
                "type": .string(model.type.rawValue),
                "publisher": .string(model.publisher),
                "format": optional(model.format),
                "params": optional(model.paramsString),
                "quantization": optional(model.quantization?.name),
                "size_bytes": .number(Double(model.sizeBytes)),
                "max_context_length": optional(model.maxContextLength),
                "loaded_instances": .array(
                    model.loadedInstances.map { instance in
                        .object([
                            "id": .string(instance.id), "context_length": optional(instance.config.contextLength),
                            "config": configJSON(instance.config)
                        ])
                    }),
                "capabilities": .object([
                    "vision": .bool(model.capabilities?.vision ?? false),
                    "tools": .bool(model.capabilities?.trainedForToolUse ?? false),
                    "reasoning": model.capabilities?.reasoning.map { .array($0.allowedOptions.map(JSONValue.string)) }
                        ?? .null,
                    "reasoning_default": optional(model.capabilities?.reasoning?.default)
                ]),
                "description": optional(model.description),
                "variants": model.variants.map { .array($0.map(JSONValue.string)) } ?? .null,
                "selected_variant": optional(model.selectedVariant)
            ])
        }
        return JSONValue.array(objects).jsonString + "\n"
    }
}
