import Chat
import LMStudio

/// `config/get` and `config/set`: the settings file, as `key = value` pairs.
enum ConfigMethods {
    static func register(in registry: inout MethodRegistry) {
        PresetMethods.register(in: &registry)
        registry.register("config/get") { context, params in
            let configuration = try Configuration.load(path: context.server.configurationPath)
            if let key = try params.optionalString("key") {
                return .object(["key": .string(key), "value": try configuration.value(forKey: key).map(JSONValue.string) ?? .null])
            }
            var values: [String: JSONValue] = [:]
            for (key, _) in Configuration.keys {
                values[key] = try configuration.value(forKey: key).map(JSONValue.string) ?? .null
            }
            return .object(["values": .object(values)])
        }
        registry.register("config/set") { context, params in
            let key = try params.string("key")
            let value = try params.optionalString("value") ?? ""
            var configuration = try Configuration.load(path: context.server.configurationPath)
            try configuration.setValue(value, forKey: key)
            try configuration.save(path: context.server.configurationPath)
            return .object(["key": .string(key), "value": try configuration.value(forKey: key).map(JSONValue.string) ?? .null])
        }
    }
}
