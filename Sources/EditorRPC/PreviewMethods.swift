import Chat
import Foundation
import LMStudio

/// `chat/preview`: the request `chat/send` would make, for an editor's dry run (`ChatSession.previewRequest`).
enum PreviewMethods {
    static func register(in registry: inout MethodRegistry) {
        registry.register("chat/preview") { context, params in
            let fresh = (try? params.optionalString("freshContext")) ?? nil
            let images = try (params.optionalStrings("images") ?? []).map { path in
                do { return try ImageInput.load(path: path) } catch { throw RPCError.invalidParams("\(error)") }
            }
            let overrides = ConversationOverrides(
                model: try params.optionalString("model"), systemPrompt: try params.optionalString("systemPrompt"),
                reasoning: try params.optionalString("reasoning"),
                integrations: try params.optionalStrings("integrations"))
            let reference = try params.optionalString("conversationId")
            let items = try await ContextMethods.items(for: reference, params, session: context.session)
            let request = try await context.session.previewRequest(
                Turn(text: try params.optionalString("text") ?? "", images: images, context: items),
                in: reference,
                freshContext: fresh != nil || (try? params.bool("freshContext")) == true, overrides: overrides)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            encoder.userInfo[InputItem.textTypeKey] = InputItem.defaultTextType
            let body = shortened(try JSONValue.parsing(Array(try encoder.encode(request))))
            return .object([
                "method": .string("POST"), "path": .string("/api/v1/chat"),
                "server": .string(ServerURL.redactingPasswords(in: context.session.configuration.server)),
                "body": body, "text": .string(pretty(body))
            ])
        }
    }

    /// `value` with each image's data URL cut to its type and size: the base64 bytes would fill the editor.
    private static func shortened(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text) where text.hasPrefix("data:image/") && text.count > 80:
            let head = text.prefix { $0 != "," }
            return .string("\(head),… (\(text.count - head.count - 1) base64 characters)")
        case .array(let items): return .array(items.map(shortened))
        case .object(let members): return .object(members.mapValues(shortened))
        default: return value
        }
    }

    /// `value` as JSON text with sorted keys, two spaces a level.
    private static func pretty(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
        return (try? encoder.encode(value)).flatMap { String(data: $0, encoding: .utf8) } ?? value.jsonString
    }
}
