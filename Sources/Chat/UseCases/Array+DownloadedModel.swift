import LMStudio

extension Array where Element == Model {
    /// The model `reference` names: a model key, or a loaded instance id such as `key:2`; nil when none matches.
    public func model(named reference: String) -> Model? {
        first { $0.key == reference || $0.loadedInstances.contains { $0.id == reference } }
    }

    /// The model `reference` names (see `model(named:)`), else `ChatError.modelNotDownloaded` with the nearest key.
    public func downloadedModel(_ reference: String) throws(ChatError) -> Model {
        guard let model = model(named: reference) else { throw notDownloaded(reference) }
        return model
    }

    /// `ChatError.modelNotDownloaded` for `reference`, suggesting the key it is a prefix of or the nearest key
    /// within a quarter of its length in edits (at least 2), so every face offers the same "did you mean".
    public func notDownloaded(_ reference: String) -> ChatError {
        .modelNotDownloaded(
            reference,
            suggestion: EditDistance.nearest(to: reference, in: map(\.key), maximum: Swift.max(2, reference.count / 4)))
    }
}
