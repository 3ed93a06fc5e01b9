import Chat
import LMStudio

/// `config/get` and `config/set`: the settings file, as `key = value` pairs; `servers/list`: its server profiles;
/// `servers/use`: the server the session talks to.
enum ConfigMethods {
    /// `{servers: [{name, url, current}], current: URL, currentProfile: NAME or null}`.
    static func serversJSON(_ configuration: Configuration) -> JSONValue {
        let current = configuration.server
        let profiles: [JSONValue] = configuration.servers.sorted { $0.key < $1.key }.map { name, url in
            .object([
                "name": .string(name), "url": .string(ServerURL.redactingPasswords(in: url)),
                "current": .bool(ServerURL.same(url, current))
            ])
        }
        return .object([
            "servers": .array(profiles), "current": .string(ServerURL.redactingPasswords(in: current)),
            "currentProfile": configuration.serverProfile.map(JSONValue.string) ?? .null
        ])
    }

    static func register(in registry: inout MethodRegistry) {
        PresetMethods.register(in: &registry)
        registry.register("config/get") { context, params in
            let configuration = try Configuration.load(path: context.server.configurationPath)
            if let key = try params.optionalString("key") {
                return .object([
                    "key": .string(key), "value": try configuration.value(forKey: key).map(JSONValue.string) ?? .null
                ])
            }
            var values: [String: JSONValue] = [:]
            for (key, _) in Configuration.keys {
                values[key] = try configuration.value(forKey: key).map(JSONValue.string) ?? .null
            }
            return .object(["values": .object(values)])
        }
        registry.register("servers/list") { context, _ in
            serversJSON(context.session.configuration)
        }
        registry.register("servers/use") { context, params in
            serversJSON(try await context.session.useServer(try params.string("server")))
        }
        registry.register("config/set") { context, params in
            let key = try params.string("key")
            let value = try params.optionalString("value") ?? ""
            var configuration = try Configuration.load(path: context.server.configurationPath)
            try configuration.setValue(value, forKey: key)
            try configuration.save(path: context.server.configurationPath)
            return .object([
                "key": .string(key), "value": try configuration.value(forKey: key).map(JSONValue.string) ?? .null
            ])
        }
    }
}
