/// The long name of every option llmster accepts, declared once: options are declared and looked up by their case
/// (`arguments.has(.freshContext)`), so a misspelt name does not compile.
public enum OptionName: String, Sendable, CaseIterable {
    case all
    case alternatives
    case asNew = "as-new"
    case at
    case audioInput = "audio-input"
    case chat
    case config
    case contextLength = "context-length"
    case `continue`
    case demo
    case dropContinuation = "drop-continuation"
    case dryRun = "dry-run"
    case embedding
    case evalBatchSize = "eval-batch-size"
    case file
    case flashAttention = "flash-attention"
    case folder
    case framing
    case freshContext = "fresh-context"
    case fromLmstudio = "from-lmstudio"
    case help
    case image
    case integration
    case interval
    case json
    case last
    case library
    case limit
    case loaded
    case markdown
    case maxKdfMemory = "max-kdf-memory"
    case model
    case noSave = "no-save"
    case numExperts = "num-experts"
    case offloadKvCacheToGpu = "offload-kv-cache-to-gpu"
    case onOverflow = "on-overflow"
    case output
    case password
    case passwordFile = "password-file"
    case pinned
    case preset
    case quantization
    case quiet
    case reasoning
    case server
    case silence
    case sort
    case speak
    case status
    case system
    case title
    case tools
    case version
    case vision
    case yes
}
