import Foundation
import HTTP
import LMStudio
import Simulator
import TestSupport
import Testing

/// The simulator serves what LM Studio's documentation describes: it takes every documented request, and its
/// replies and events carry the documented fields and no others (besides the catalogue's deliberate extras).
@Suite struct SimulatorContractTests {
    /// A reply as the simulator sent it.
    struct Served {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]

        var object: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
        }

        /// The SSE events of a streamed body, as name and data object.
        func events() throws -> [(name: String, data: [String: Any])] {
            var parser = SSEParser()
            let parsed = try parser.feed(body) + parser.finish()
            return parsed.compactMap { event in
                guard let data = try? JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any] else {
                    return nil
                }
                return (event.name ?? "", data)
            }
        }
    }

    func send(_ fixture: SimulatorFixture, _ method: String, _ path: String, body: String? = nil) async throws -> Served
    {
        let request = HTTPRequest(
            method: method, url: fixture.url + path, headers: body == nil ? [:] : ["Content-Type": "application/json"],
            body: body.map { Array($0.utf8) })
        let response = try await CurlTransport().send(request)
        var bytes: [UInt8] = []
        for try await chunk in response.body { bytes += chunk }
        return Served(status: response.status, headers: response.headers, body: bytes)
    }

    /// A documented request with `changes` applied (a catalogue model in place of the docs' one).
    func documented(_ text: String, _ changes: [String: Any]) throws -> String {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        for (key, value) in changes { object[key] = value }
        return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    func keys(_ value: Any?) -> Set<String> {
        Set((value as? [String: Any])?.keys.map { $0 } ?? [])
    }

    func object(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    /// `chat.md`: the fields of each output item type.
    static let outputItemFields: [String: Set<String>] = [
        "message": ["type", "content"],
        "reasoning": ["type", "content"],
        "tool_call": ["type", "tool", "arguments", "output", "provider_info"],
        "invalid_tool_call": ["type", "reason", "metadata"]
    ]

    /// `chat.md`: the fields of `stats`.
    static let statsFields: Set<String> = [
        "input_tokens", "total_output_tokens", "reasoning_output_tokens", "tokens_per_second",
        "time_to_first_token_seconds", "model_load_time_seconds"
    ]

    /// `chat.md`, `streaming-events.md`: `provider_info` by its type.
    static let providerFields: [String: Set<String>] = [
        "plugin": ["type", "plugin_id"], "ephemeral_mcp": ["type", "server_label"]
    ]

    /// Checks a chat result against `chat.md`.
    func expectDocumentedResult(
        _ result: [String: Any], stored: Bool, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            keys(result)
                == (stored
                    ? ["model_instance_id", "output", "stats", "response_id"]
                    : ["model_instance_id", "output", "stats"]),
            sourceLocation: sourceLocation)
        #expect(keys(result["stats"]).isSubset(of: Self.statsFields), sourceLocation: sourceLocation)
        for item in result["output"] as? [[String: Any]] ?? [] {
            let type = item["type"] as? String ?? ""
            #expect(
                Set(item.keys) == Self.outputItemFields[type], "output item \(type)", sourceLocation: sourceLocation)
            if let provider = item["provider_info"] as? [String: Any] {
                #expect(
                    Set(provider.keys) == Self.providerFields[provider["type"] as? String ?? ""],
                    sourceLocation: sourceLocation)
            }
            if type == "invalid_tool_call" {
                expectDocumentedFailureMetadata(item["metadata"], sourceLocation: sourceLocation)
            }
        }
    }

    /// `arguments` and `provider_info` only for `invalid_arguments` (`chat.md`, `streaming-events.md`).
    func expectDocumentedFailureMetadata(_ metadata: Any?, sourceLocation: SourceLocation = #_sourceLocation) {
        let fields = keys(metadata)
        let type = (metadata as? [String: Any])?["type"] as? String
        if type == "invalid_name" {
            #expect(
                fields == ["type", "tool_name"], "invalid_name metadata: \(fields.sorted())",
                sourceLocation: sourceLocation)
        } else {
            #expect(
                fields.isSubset(of: ["type", "tool_name", "arguments", "provider_info"]), sourceLocation: sourceLocation
            )
        }
    }

    // MARK: chat.md, stateful-chats.mdx, mcp.mdx

    @Test func documentedChatRequestsAreServedWithTheDocumentedReply() async throws {
        let fixture = try SimulatorFixture()
        let requests: [(String, [String: Any])] = [
            (DocumentedExamples.chatRequestWithMCP, ["model": "acme/toolsmith-12b"]),
            (DocumentedExamples.chatRequestWithImages, ["model": "acme/vision-7b"]),
            (DocumentedExamples.mcpJSONRequest, ["model": "acme/toolsmith-12b"]),
            (DocumentedExamples.mcpHeadersRequest, ["model": "acme/toolsmith-12b"]),
            (DocumentedExamples.statefulStart, ["model": "acme/tiny-1b"])
        ]
        for (request, changes) in requests {
            let served = try await send(fixture, "POST", "/api/v1/chat", body: try documented(request, changes))
            #expect(served.status == 200, "\(String(decoding: served.body, as: UTF8.self))")
            expectDocumentedResult(served.object, stored: true)
        }
        let first = try await send(
            fixture, "POST", "/api/v1/chat",
            body: try documented(DocumentedExamples.statefulStart, ["model": "acme/tiny-1b"]))
        let id = try #require(first.object["response_id"] as? String)
        #expect(id.hasPrefix("resp_"), "stateful-chats.mdx: response ids start with resp_")
        let next = try await send(
            fixture, "POST", "/api/v1/chat",
            body: try documented(
                DocumentedExamples.statefulContinue, ["model": "acme/tiny-1b", "previous_response_id": id]))
        #expect(next.status == 200)
        expectDocumentedResult(next.object, stored: true)
        let stateless = try await send(
            fixture, "POST", "/api/v1/chat",
            body: try documented(DocumentedExamples.statelessChat, ["model": "acme/tiny-1b"]))
        expectDocumentedResult(stateless.object, stored: false)
    }

    // MARK: streaming-events.md

    /// The fields each event's documented example has (`provider_info` and `metadata` checked apart).
    var documentedEventFields: [String: Set<String>] {
        Dictionary(uniqueKeysWithValues: DocumentedExamples.streamEvents.map { ($0.name, keys(object($0.data))) })
    }

    func expectDocumentedEvents(
        _ events: [(name: String, data: [String: Any])], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(events.first?.name == "chat.start" && events.last?.name == "chat.end", sourceLocation: sourceLocation)
        for event in events {
            #expect(event.data["type"] as? String == event.name, sourceLocation: sourceLocation)
            #expect(
                Set(event.data.keys) == documentedEventFields[event.name], "\(event.name): \(event.data.keys.sorted())",
                sourceLocation: sourceLocation)
            if let provider = event.data["provider_info"] as? [String: Any] {
                #expect(
                    Set(provider.keys) == Self.providerFields[provider["type"] as? String ?? ""],
                    sourceLocation: sourceLocation)
            }
            if event.name == "tool_call.failure" {
                expectDocumentedFailureMetadata(event.data["metadata"], sourceLocation: sourceLocation)
            }
            if event.name == "error" {
                #expect(
                    keys(event.data["error"]).isSubset(of: ["type", "message", "code", "param"]),
                    sourceLocation: sourceLocation)
            }
            if event.name == "chat.end" {
                expectDocumentedResult(
                    event.data["result"] as? [String: Any] ?? [:], stored: true, sourceLocation: sourceLocation)
            }
        }
    }

    @Test func servedEventsCarryTheDocumentedFields() async throws {
        let fixture = try SimulatorFixture()
        let body = try documented(
            DocumentedExamples.chatRequestWithMCP,
            [
                "model": "acme/toolsmith-12b", "stream": true,
                "input": "[[sim:tools]] What is trending?"
            ])
        let events = try await send(fixture, "POST", "/api/v1/chat", body: body).events()
        expectDocumentedEvents(events)
        let served = Set(events.map(\.name))
        let documented = Set(DocumentedExamples.streamEvents.map(\.name))
        #expect(documented.subtracting(served) == ["error"], "a JIT load with tools sends every event but error")

        let failed = try await send(
            fixture, "POST", "/api/v1/chat",
            body: #"{"model":"acme/tiny-1b","input":"[[sim:error=invalid_request]] hi","stream":true,"store":false}"#
        ).events()
        #expect(failed.contains { $0.name == "error" })
        for event in failed where event.name != "chat.end" {
            #expect(Set(event.data.keys) == documentedEventFields[event.name], "\(event.name)")
        }
    }

    // MARK: list.md

    /// Fields the catalogue carries on purpose, beyond the documented ones: clients must ignore unknown keys.
    static let deliberateExtras: Set<String> = ["license", "sim_release", "compatibility"]

    @Test func modelsListHasTheDocumentedFields() async throws {
        let fixture = try SimulatorFixture()
        for model in ["acme/multi-26b", "acme/embed-small", "acme/vision-7b"] {
            let loaded = try await send(fixture, "POST", "/api/v1/models/load", body: #"{"model":"\#(model)"}"#)
            #expect(loaded.status == 200)
        }
        let models = try #require(try await send(fixture, "GET", "/api/v1/models").object["models"] as? [[String: Any]])
        let documentedEmbedding = keys((object(DocumentedExamples.modelList)["models"] as? [Any])?.last)
        for model in models {
            let key = model["key"] as? String ?? ""
            #expect(
                Set(model.keys).subtracting(Self.deliberateExtras).isSubset(of: DocumentedExamples.modelFields),
                "\(key)")
            let configs = (model["loaded_instances"] as? [[String: Any]] ?? []).map { keys($0["config"]) }
            switch key {
            case "acme/embed-small":
                #expect(Set(model.keys) == documentedEmbedding, "an embedding model lists what list.md's example does")
                #expect(model["params_string"] is NSNull)
                #expect(
                    configs == [["context_length"]], "list.md: all but context_length are absent for embedding models")
            case "acme/multi-26b":
                #expect(
                    configs == [DocumentedExamples.instanceConfigFields],
                    "a llama.cpp MoE instance lists every documented key")
            case "acme/tiny-1b":
                #expect(configs == [DocumentedExamples.instanceConfigFields.subtracting(["num_experts"])])
            case "acme/vision-7b":
                #expect(
                    configs == [["context_length", "parallel"]], "the llama.cpp options do not apply to an MLX model")
            default:
                #expect(configs.isEmpty)
            }
        }
    }

    @Test func anEarlyServerListsNoneOfTheFieldsDocumentedInApril2026() async throws {
        let fixture = try SimulatorFixture(SimulatorOptions(earlyModelList: true))
        let models = try #require(try await send(fixture, "GET", "/api/v1/models").object["models"] as? [[String: Any]])
        for model in models {
            #expect(model["variants"] == nil && model["selected_variant"] == nil)
            #expect((model["capabilities"] as? [String: Any])?["reasoning"] == nil)
            for instance in model["loaded_instances"] as? [[String: Any]] ?? [] {
                #expect(keys(instance["config"]).contains("parallel") == false)
            }
        }
    }

    // MARK: load.md, unload.md

    @Test func loadAndUnloadRepliesHaveTheDocumentedFields() async throws {
        let fixture = try SimulatorFixture()
        let echoed = try await send(
            fixture, "POST", "/api/v1/models/load",
            body: try documented(DocumentedExamples.loadRequest, ["model": "acme/multi-26b"]))
        #expect(keys(echoed.object) == keys(object(DocumentedExamples.loadReply)))
        #expect(keys(echoed.object["load_config"]) == keys(object(DocumentedExamples.loadReply)["load_config"]))
        let plain = try await send(
            fixture, "POST", "/api/v1/models/load", body: #"{"model":"acme/thinker-8b","context_length":8192}"#)
        #expect(keys(plain.object) == keys(object(DocumentedExamples.loadReplyWithoutConfig)))
        let embedding = try await send(
            fixture, "POST", "/api/v1/models/load", body: #"{"model":"acme/embed-small","echo_load_config":true}"#)
        #expect(embedding.object["type"] as? String == "embedding")
        #expect(
            keys(embedding.object["load_config"]) == ["context_length"],
            "load.md: an embedding load config has only context_length")

        let unloaded = try await send(
            fixture, "POST", "/api/v1/models/unload",
            body: try documented(DocumentedExamples.unloadRequest, ["instance_id": "acme/thinker-8b"]))
        #expect(keys(unloaded.object) == keys(object(DocumentedExamples.unloadReply)))
        #expect(unloaded.object["instance_id"] as? String == "acme/thinker-8b")
    }

    // MARK: download.md, download-status.md

    @Test func downloadRepliesHaveTheDocumentedFields() async throws {
        let fixture = try SimulatorFixture()
        let started = try await send(
            fixture, "POST", "/api/v1/models/download",
            body: try documented(DocumentedExamples.downloadRequest, ["model": "acme/new-3b"]))
        #expect(
            keys(started.object) == keys(object(DocumentedExamples.downloadReply)),
            "download.md: no status-only fields in the start reply")
        #expect(keys(started.object).isSubset(of: DocumentedExamples.downloadReplyFields))
        let job = try #require(started.object["job_id"] as? String)
        var status: [String: Any] = [:]
        for _ in 0..<8 where status["status"] as? String != "completed" {
            status = try await send(fixture, "GET", "/api/v1/models/download/status/" + job).object
            #expect(keys(status).isSubset(of: DocumentedExamples.downloadStatusFields))
        }
        #expect(keys(status) == keys(object(DocumentedExamples.downloadStatusReply)))
        let already = try await send(fixture, "POST", "/api/v1/models/download", body: #"{"model":"acme/tiny-1b"}"#)
        #expect(keys(already.object) == ["status"], "download.md: an already downloaded model has no job")
    }
}
