extension Model {
    /// The `reasoning` values `POST /api/v1/chat` documents (`chat.md`); the server errs for one the model does not support.
    public static let documentedReasoningValues = ["off", "low", "medium", "high", "on"]

    /// The `reasoning` values to accept for this model, given every model of the list it came from; nil: any value
    /// goes, and the server decides.
    ///
    /// The model's `capabilities.reasoning.allowed_options` when it lists them. When no model of the list carries
    /// `capabilities.reasoning` (the field entered `list.md` in April 2026; an earlier server lists it for none),
    /// nil: such a server may take values the docs do not list (`xhigh`). A model of a newer server that lists none
    /// has none.
    public func reasoningOptions(in models: [Model]) -> [String]? {
        if let reasoning = capabilities?.reasoning { return reasoning.allowedOptions }
        return models.listsReasoning ? [] : nil
    }

    /// The values to offer for completion: the model's own, else (an older server) the documented ones.
    public func reasoningSuggestions(in models: [Model]) -> [String] {
        reasoningOptions(in: models) ?? Self.documentedReasoningValues
    }
}

extension Array where Element == Model {
    /// Whether any model carries `capabilities.reasoning`, i.e. the server is new enough to list it.
    public var listsReasoning: Bool {
        contains { $0.capabilities?.reasoning != nil }
    }
}
