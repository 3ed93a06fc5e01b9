import LMStudio

/// The methods a server answers, by name; a feature adds its methods with one `register` each.
public struct MethodRegistry: Sendable {
    /// Runs one request; throws `RPCError` (or any error `RPCError.from` maps) to answer with an error.
    public typealias Handler = @Sendable (RequestContext, Params) async throws -> JSONValue

    private var handlers: [String: Handler] = [:]

    /// An empty registry.
    public init() {}

    /// Adds (or replaces) the method `name`.
    public mutating func register(_ name: String, _ handler: @escaping Handler) {
        handlers[name] = handler
    }

    /// The handler for `name`.
    func handler(_ name: String) -> Handler? { handlers[name] }

    /// Every method's name, sorted (the server's own `initialize`, `shutdown` and `config/reload` included).
    public var names: [String] { (Array(handlers.keys) + ["initialize", "shutdown", "config/reload"]).sorted() }

    /// Every method of protocol version 1.
    public static var standard: MethodRegistry {
        var registry = MethodRegistry()
        ModelMethods.register(in: &registry)
        PendingModelMethods.register(in: &registry)
        LibraryMethods.register(in: &registry)
        ChatMethods.register(in: &registry)
        ConfigMethods.register(in: &registry)
        TransferMethods.register(in: &registry)
        IntegrationMethods.register(in: &registry)
        AlternativeMethods.register(in: &registry)
        ForkMethods.register(in: &registry)
        ContextMethods.register(in: &registry)
        PreviewMethods.register(in: &registry)
        return registry
    }
}
