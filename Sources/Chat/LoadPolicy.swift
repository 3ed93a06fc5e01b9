/// Decides which model instances to unload and whether to load, when a conversation switches models.
///
/// By default the previous chat model's instances and duplicate instances of the chosen model are
/// unloaded; unrelated models and the summarizer are never touched. `keepPreviousModels` keeps the
/// previous chat model loaded.
public struct LoadPolicy: Sendable, Equatable {
    /// A loaded instance and the model it belongs to.
    public struct Instance: Sendable, Equatable {
        public let id: String
        public let modelKey: String
        /// Creates an instance description.
        public init(id: String, modelKey: String) {
            self.id = id
            self.modelKey = modelKey
        }
    }

    /// What to do: unload these instance ids, then load the chosen model if `load` is true.
    public struct Plan: Sendable, Equatable {
        public var unload: [String]
        public var load: Bool
        /// The instance that will serve the conversation when `load` is false.
        public var keep: String?
        /// Creates a plan.
        public init(unload: [String], load: Bool, keep: String?) {
            self.unload = unload
            self.load = load
            self.keep = keep
        }
    }

    public var keepPreviousModels: Bool
    public var summarizerModel: String?

    /// Creates the policy from the user's settings.
    public init(keepPreviousModels: Bool, summarizerModel: String?) {
        self.keepPreviousModels = keepPreviousModels
        self.summarizerModel = summarizerModel
    }

    /// The plan for choosing model `chosen` (or its loaded `instance`) when `previous` was the conversation's model.
    public func plan(loaded: [Instance], previous: String?, chosen: String, instance: String? = nil) -> Plan {
        var unload: [String] = []
        let chosenInstances = loaded.filter { $0.modelKey == chosen }
        // Keep the named instance, else the plain-key one when there is one (`key` rather than `key:2`).
        let kept =
            chosenInstances.first { $0.id == (instance ?? chosen) } ?? chosenInstances.first { $0.id == chosen }
            ?? chosenInstances.first
        if chosen != summarizerModel {
            unload += chosenInstances.filter { $0 != kept }.map(\.id)
        }
        if let previous, previous != chosen, previous != summarizerModel, !keepPreviousModels {
            unload += loaded.filter { $0.modelKey == previous }.map(\.id)
        }
        return Plan(unload: unload, load: kept == nil, keep: kept?.id)
    }
}
