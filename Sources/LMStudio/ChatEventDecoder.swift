import Foundation

/// Turns `/api/v1/chat` stream events into ``ChatEvent``s.
///
/// Dispatches on the JSON `type` field, else on the `event:` name. Unknown
/// types and payloads that are not JSON objects (such as `[DONE]`) give nil.
/// Answer and reasoning deltas, most of a stream, are read by ``TextDeltaScanner``
/// when they have their usual two-member shape; everything else goes through `JSONDecoder`, a large
/// `chat.end` with its long texts read by ``LiftedStrings`` first.
public struct ChatEventDecoder: Sendable {
    private let decoder = JSONDecoder()

    /// Creates a decoder.
    public init() {}

    /// The chat event `event` carries, if any.
    public func decode(_ event: SSEEvent) -> ChatEvent? {
        decode(name: event.name, data: Array(event.data.utf8))
    }

    /// The chat event a raw event carries, decoded from its bytes without building a `String` of the payload.
    func decode(_ event: RawSSEEvent) -> ChatEvent? {
        let lifted =
            event.literals.isEmpty
            ? nil : LiftedStrings(skeleton: event.data, literals: event.literals, token: event.literalToken)
        return decode(name: event.name.map { String(decoding: $0, as: UTF8.self) }, data: event.data, lifted: lifted)
    }

    /// `name` is made only when a payload lacks `type`: a delta (most events) never builds it. `lifted` holds the
    /// long strings taken out of `data` while it arrived.
    private func decode(name: @autoclosure () -> String?, data: [UInt8], lifted: LiftedStrings? = nil) -> ChatEvent? {
        if lifted == nil, let delta = data.withUnsafeBufferPointer({ TextDeltaScanner.event(in: $0) }) { return delta }
        guard data.first(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\n") }) == UInt8(ascii: "{") else {
            return nil
        }
        let payload: Payload
        switch lifted.map({ self.payload(liftedAsItArrived: $0) }) ?? self.payload(of: data) {
        case .success(let decoded): payload = decoded
        case .failure(let error): return .unreadable(reason: Self.reason(error, event: name(), data: data))
        }
        switch payload.type ?? name() {
        case "chat.start": return .chatStart(modelInstanceId: payload.modelInstanceId)
        case "model_load.start": return .modelLoadStart(modelInstanceId: payload.modelInstanceId)
        case "model_load.progress": return .modelLoadProgress(payload.progress ?? 0)
        case "model_load.end": return .modelLoadEnd(loadTimeSeconds: payload.loadTimeSeconds)
        case "prompt_processing.start": return .promptProcessingStart
        case "prompt_processing.progress": return .promptProcessingProgress(payload.progress ?? 0)
        case "prompt_processing.end": return .promptProcessingEnd
        case "reasoning.start": return .reasoningStart
        case "reasoning.delta": return .reasoningDelta(payload.content ?? "")
        case "reasoning.end": return .reasoningEnd
        case "tool_call.start":
            return .toolCallStart(tool: payload.tool ?? "", provider: payload.providerInfo)
        case "tool_call.name": return .toolCallName(tool: payload.tool ?? payload.name ?? "")
        case "tool_call.arguments":
            return .toolCallArguments(
                tool: payload.tool ?? "", arguments: payload.arguments ?? .object([:]), provider: payload.providerInfo)
        case "tool_call.success":
            return .toolCallSuccess(
                tool: payload.tool ?? "", arguments: payload.arguments ?? .object([:]),
                output: payload.output?.textValue ?? "", provider: payload.providerInfo)
        case "tool_call.failure": return .toolCallFailure(reason: payload.reason ?? "", metadata: payload.metadata)
        case "message.start": return .messageStart
        case "message.delta": return .messageDelta(payload.content ?? "")
        case "message.end": return .messageEnd
        case "error":
            return .error(
                payload.error
                    ?? APIErrorPayload(message: payload.errorMessage ?? "the server reported an unspecified error"))
        case "chat.end": return .chatEnd(payload.result ?? ChatResult())
        default: return nil
        }
    }
}

extension ChatEventDecoder {
    /// The payload in `bytes`, decoded in place (a `chat.end` can be as large as the reply).
    fileprivate func payload(of bytes: [UInt8]) -> Result<Payload, any Error> {
        if var lifted = LiftedStrings(payload: bytes), var payload = try? decodeRepairing(lifted.skeleton) {
            payload.restore(from: &lifted)
            if lifted.isRestored { return .success(payload) }
        }
        return Result { try decodeRepairing(bytes) }
    }

    /// The payload of a line lifted as it arrived. A long string where no reply text lies (a tool's output or
    /// arguments) is put back as it came and the payload read again. A text confirmed against the streamed reply
    /// that stands where no reply text is read (the content of an item of an unknown type) is left out, as reading
    /// the event whole would ignore it.
    fileprivate func payload(liftedAsItArrived lifted: LiftedStrings) -> Result<Payload, any Error> {
        guard !lifted.hasUndecodableLiteral else { return .failure(LiftedTextError.undecodable) }
        var restoring = lifted
        if var payload = try? decodeRepairing(restoring.skeleton) {
            payload.restore(from: &restoring)
            if restoring.holdsOnlyConfirmedTexts { return .success(payload) }
        }
        var whole = lifted.keptStringsPutBack()
        if whole.isRestored { return self.payload(of: whole.skeleton) }
        return Result { try decodeRepairing(whole.skeleton) }.map { payload in
            var payload = payload
            payload.restore(from: &whole)
            return payload
        }
    }

    /// The payload in `bytes`, decoded in place; bytes that are not valid UTF-8 are decoded again with U+FFFD for
    /// the invalid sequences.
    fileprivate func decodeRepairing(_ bytes: [UInt8]) throws -> Payload {
        try bytes.withUnsafeBufferPointer { bytes in
            // No copy: the bytes outlive the decode, and the decoder copies whatever it keeps.
            let data = Data(
                bytesNoCopy: UnsafeMutableRawPointer(mutating: bytes.baseAddress!), count: bytes.count,
                deallocator: .none)
            do {
                return try decoder.decode(Payload.self, from: data)
            } catch {
                guard String(validating: bytes, as: UTF8.self) == nil else { throw error }
                return try decoder.decode(Payload.self, from: Data(String(decoding: bytes, as: UTF8.self).utf8))
            }
        }
    }

    /// Why an event could not be read, in a few words for the reply's error message (no payload text).
    ///
    /// A number no Swift type holds (beyond Int64, say) fails the whole decode; the field that holds it is named.
    fileprivate static func reason(_ error: any Error, event name: String?, data: [UInt8]) -> String {
        var detail = "not valid JSON"
        if let error = error as? LiftedTextError {
            detail = error.description
        } else if case DecodingError.dataCorrupted(let context) = error {
            let underlying = (context.underlyingError as? NSError)?.userInfo[NSDebugDescriptionErrorKey] as? String
            detail = underlying ?? context.debugDescription
            if let field = fieldPath(context.codingPath) {
                detail = "field \(field): " + detail
            } else if let field = unrepresentableNumberField(in: data) {
                detail = "field \(field) holds a number beyond the 64-bit range"
            }
        }
        let words = LMStudioError.sanitized(detail, limit: 160)
        guard let name else { return "an event could not be read (\(words))" }
        let event = String(
            String.UnicodeScalarView(
                name.unicodeScalars.filter { $0.properties.isAlphabetic || $0 == "." || $0 == "_" }.prefix(40)))
        return "a \(event) event could not be read (\(words))"
    }

    /// The dotted path of the first field in the JSON `data` whose number is an integer beyond Int64 or a float beyond
    /// Double; nil when there is none or `data` is not JSON.
    fileprivate static func unrepresentableNumberField(in data: [UInt8]) -> String? {
        guard let root = try? JSONSerialization.jsonObject(with: Data(data), options: [.fragmentsAllowed]) else {
            return nil
        }
        func find(_ value: Any, _ path: [String]) -> [String]? {
            switch value {
            case let object as [String: Any]:
                for key in object.keys.sorted() {
                    if let found = find(object[key]!, path + [key]) { return found }
                }
            case let array as [Any]:
                for (index, item) in array.enumerated() {
                    if let found = find(item, path + ["[\(index)]"]) { return found }
                }
            case let number as NSNumber where !(number is Bool):
                let double = number.doubleValue
                if !double.isFinite || (double == double.rounded() && double.magnitude >= 9.223372036854775807e18) {
                    return path
                }
            default:
                break
            }
            return nil
        }
        guard let path = find(root, []), !path.isEmpty else { return nil }
        return dotted(path)
    }

    /// The dotted JSON path of a field (`result.stats.input_tokens`, array items as `[2]`); nil at the top.
    fileprivate static func fieldPath(_ path: [any CodingKey]) -> String? {
        guard !path.isEmpty else { return nil }
        return dotted(path.map { key in key.intValue.map { "[\($0)]" } ?? key.stringValue })
    }

    /// `result.output[2].content` from its names (indexes as `[2]`), each kept to letters, digits and `_`, at most 120 characters.
    private static func dotted(_ names: [String]) -> String {
        let path = names.map { name in
            name.hasPrefix("[") ? name : name.filter { $0.isLetter || $0.isNumber || $0 == "_" }
        }.reduce("") { path, name in path.isEmpty || name.hasPrefix("[") ? path + name : path + "." + name }
        return String(path.prefix(120))
    }
}

/// Why a line lifted as it arrived cannot be read.
private enum LiftedTextError: Error, CustomStringConvertible {
    /// A long string does not decode (an invalid escape, a raw control character, a lone surrogate).
    case undecodable

    var description: String { "a long text is not a valid JSON string" }
}

/// Every field any chat event carries; a field of an unexpected shape reads as absent.
private struct Payload: Decodable {
    var type: String?
    var modelInstanceId: String?
    var progress: Double?
    var loadTimeSeconds: Double?
    var content: String?
    var tool: String?
    /// A tool's name where `tool` is absent (`tool_call.name` is not documented; either may carry it).
    var name: String?
    var arguments: JSONValue?
    var output: JSONValue?
    var providerInfo: ProviderInfo?
    var reason: String?
    var metadata: ToolCallFailureMetadata?
    var error: APIErrorPayload?
    /// An error event's explanation where the server gave no `error` object: `error` as a bare string, or a
    /// top-level `message`.
    var errorMessage: String?
    var result: ChatResult?

    enum CodingKeys: String, CodingKey {
        case type, progress, content, tool, name, arguments, output, reason, metadata, error, result, message
        case modelInstanceId = "model_instance_id"
        case loadTimeSeconds = "load_time_seconds"
        case providerInfo = "provider_info"
    }

    /// A field of an unexpected shape reads as absent; one whose bytes are not valid JSON (a lone surrogate, a raw
    /// control character), which the decoder reads only when the field is asked for, makes the event unreadable.
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func field<T: Decodable>(_ key: CodingKeys) throws -> T? {
            do { return try c.decodeIfPresent(T.self, forKey: key) } catch let error as DecodingError {
                if case .dataCorrupted = error { throw error }
                return nil
            }
        }
        type = try field(.type)
        modelInstanceId = try field(.modelInstanceId)
        progress = try field(.progress)
        loadTimeSeconds = try field(.loadTimeSeconds)
        content = try field(.content)
        tool = try field(.tool)
        arguments = try field(.arguments)
        output = try field(.output)
        providerInfo = try field(.providerInfo)
        reason = try field(.reason)
        metadata = try field(.metadata)
        error = try field(.error)
        errorMessage = try field(.error) ?? field(.message)
        result = try field(.result)
    }

    /// Puts back the long texts ``LiftedStrings`` took out where a reply's text lives; others stay placeholders.
    mutating func restore(from lifted: inout LiftedStrings) {
        content = content.map { lifted.restore($0) }
        guard var result else { return }
        self.result = nil
        for index in result.output.indices {
            switch result.output[index] {
            case .message(let text): result.output[index] = .message(lifted.restore(text))
            case .reasoning(let text): result.output[index] = .reasoning(lifted.restore(text))
            default: break
            }
        }
        self.result = result
    }
}
