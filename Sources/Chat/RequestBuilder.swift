import Foundation
import LMStudio
import Library

/// Builds the `/api/v1/chat` request for a turn, sending only documented fields.
public enum RequestBuilder {
    /// The request for `turn` on `conversation`.
    ///
    /// The turn's context items go first, each as a named block (``ContextItem/input(_:message:)``).
    /// A plain string `input` without images; `previous_response_id` only when the conversation's
    /// continuation belongs to `server`; `system_prompt` only on a conversation's first turn there
    /// (servers refuse it beside `previous_response_id`).
    public static func request(
        for turn: Turn, conversation: Conversation, model: String, server: String,
        integrations: [Integration] = []
    ) -> ChatRequest {
        let continuation = continuationId(of: conversation, server: server)
        let settings = conversation.settings
        let text = ContextItem.input(turn.context, message: turn.text)
        let input: ChatInput =
            turn.images.isEmpty
            ? .text(text)
            : .items([.text(text)] + turn.images.map { .image(dataURL: dataURL($0)) })
        let systemPrompt = continuation == nil ? conversation.systemPrompt.flatMap { $0.isEmpty ? nil : $0 } : nil
        return ChatRequest(
            model: model, input: input, systemPrompt: systemPrompt,
            integrations: integrations.isEmpty ? nil : integrations, stream: true,
            temperature: settings.temperature, topP: settings.topP, topK: settings.topK, minP: settings.minP,
            repeatPenalty: settings.repeatPenalty, maxOutputTokens: settings.maxOutputTokens,
            reasoning: settings.reasoning, contextLength: settings.contextLength, previousResponseId: continuation)
    }

    /// The conversation's `previous_response_id` if it was issued by `server`.
    public static func continuationId(of conversation: Conversation, server: String) -> String? {
        guard let id = conversation.lastResponseId, let owner = conversation.serverURL,
            ServerURL.same(owner, server)
        else { return nil }
        return id
    }

    private static func dataURL(_ image: ImageInput) -> String {
        "data:\(image.mimeType);base64,\(Data(image.bytes).base64EncodedString())"
    }
}

/// Compares server URLs the way a user means them: scheme and host case-insensitively, trailing slash and userinfo ignored.
public enum ServerURL {
    /// The canonical spelling of `url`, without its userinfo: the library keeps a server's URL without it
    /// (`ServerAddress`), and it still names the server the configured URL with a password does.
    public static func normalized(_ url: String) -> String {
        var text = ServerAddress.withoutUserinfo(url.trimmingCharacters(in: .whitespaces))
        while text.hasSuffix("/") { text.removeLast() }
        guard let schemeEnd = text.range(of: "://") else { return text.lowercased() }
        let afterScheme = text[schemeEnd.upperBound...]
        let hostEnd = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
        return text[..<hostEnd].lowercased() + text[hostEnd...]
    }

    /// Whether two URLs name the same server.
    public static func same(_ a: String, _ b: String) -> Bool { normalized(a) == normalized(b) }
}
