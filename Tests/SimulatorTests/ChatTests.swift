import Foundation
import Simulator
import Testing

@Suite struct ChatTests {
    @Test func streamedChatRunsInDocumentedOrderAndEndsWithChatEnd() throws {
        try withSimulator { sim in
            let response = try chat(sim, ["model": "acme/tiny-1b", "input": "hello", "stream": true])
            #expect(response.status == 200)
            #expect(response.headers["content-type"] == "text/event-stream")
            #expect(response.headers["transfer-encoding"] == "chunked")
            #expect(response.complete)
            #expect(response.text.contains(": keep-alive\n\n"))
            let names = collapsed(response.eventNames)
            #expect(
                names == [
                    "chat.start", "prompt_processing.start", "prompt_processing.progress", "prompt_processing.end",
                    "message.start", "message.delta", "message.end", "chat.end"
                ])
            #expect(response.eventNames.filter { $0 == "message.delta" }.count > 5)
            for event in response.events {
                #expect(event.json["type"] as? String == event.name)
            }
            let streamed = response.events.filter { $0.name == "message.delta" }.compactMap {
                $0.json["content"] as? String
            }.joined()
            #expect(streamed.hasPrefix("You said: *hello*"))
            #expect(streamed.contains("```"))
            let result = try #require(response.events.last?.json["result"] as? [String: Any])
            #expect(result["model_instance_id"] as? String == "acme/tiny-1b")
            let output = result["output"] as? [[String: Any]] ?? []
            #expect(output.count == 1)
            #expect(output.first?["type"] as? String == "message")
            #expect(output.first?["content"] as? String == streamed)
            let stats = result["stats"] as? [String: Any] ?? [:]
            for key in [
                "input_tokens", "total_output_tokens", "reasoning_output_tokens", "tokens_per_second",
                "time_to_first_token_seconds"
            ] {
                #expect(stats[key] != nil, "stats lacks \(key)")
            }
            #expect((result["response_id"] as? String)?.hasPrefix("resp_") == true)
        }
    }

    @Test func nonStreamingReturnsTheSameResultShape() throws {
        try withSimulator { sim in
            let response = try chat(sim, ["model": "acme/tiny-1b", "input": "hello"])
            #expect(response.status == 200)
            #expect(response.headers["content-type"]?.hasPrefix("application/json") == true)
            let output = response.json["output"] as? [[String: Any]] ?? []
            #expect((output.first?["content"] as? String)?.hasPrefix("You said: *hello*") == true)
            #expect(response.json["stats"] is [String: Any])
            #expect((response.json["response_id"] as? String)?.hasPrefix("resp_") == true)
        }
    }

    @Test func chatWithAnUnloadedModelLoadsItJustInTime() throws {
        try withSimulator { sim in
            #expect(loadedIDs(sim, "acme/thinker-8b").isEmpty)
            let response = try chat(sim, ["model": "acme/thinker-8b", "input": "think", "stream": true])
            let names = collapsed(response.eventNames)
            #expect(
                Array(names.prefix(5)) == [
                    "chat.start", "model_load.start", "model_load.progress", "model_load.end", "prompt_processing.start"
                ])
            let progress = response.events.filter { $0.name == "model_load.progress" }.compactMap {
                $0.json["progress"] as? Double
            }
            #expect(progress.count >= 3)
            #expect(progress == progress.sorted())
            #expect(progress.last == 1)
            let end = try #require(response.events.first { $0.name == "model_load.end" })
            #expect(end.json["load_time_seconds"] is Double)
            #expect(end.json["model_instance_id"] as? String == "acme/thinker-8b")
            let stats = (response.events.last?.json["result"] as? [String: Any])?["stats"] as? [String: Any]
            #expect(stats?["model_load_time_seconds"] != nil)
            #expect(loadedIDs(sim, "acme/thinker-8b") == ["acme/thinker-8b"])
        }
    }

    @Test func reasoningModelsReasonBeforeAnswering() throws {
        try withSimulator { sim in
            let response = try chat(
                sim, ["model": "acme/thinker-8b", "input": "why", "stream": true, "reasoning": "high"])
            let names = collapsed(response.eventNames)
            let reasoningStart = try #require(names.firstIndex(of: "reasoning.start"))
            let messageStart = try #require(names.firstIndex(of: "message.start"))
            #expect(reasoningStart < messageStart)
            let result = response.events.last?.json["result"] as? [String: Any]
            let types = (result?["output"] as? [[String: Any]] ?? []).compactMap { $0["type"] as? String }
            #expect(types == ["reasoning", "message"])
            #expect(((result?["stats"] as? [String: Any])?["reasoning_output_tokens"] as? Int ?? 0) > 0)

            let off = try chat(sim, ["model": "acme/thinker-8b", "input": "why", "stream": true, "reasoning": "off"])
            #expect(!off.eventNames.contains("reasoning.start"))
        }
    }

    @Test func aSecondInstanceCanBeAddressedById() throws {
        try withSimulator { sim in
            _ = try post(sim, "/api/v1/models/load", ["model": "acme/tiny-1b"])
            let response = try chat(sim, ["model": "acme/tiny-1b:2", "input": "hi", "stream": true])
            #expect(response.events.first?.json["model_instance_id"] as? String == "acme/tiny-1b:2")
            #expect(!response.eventNames.contains("model_load.start"))
        }
    }

    @Test func aJITContextLengthNoInstanceHasLoadsAnotherInstance() throws {
        try withSimulator { sim in
            let response = try chat(
                sim, ["model": "acme/tiny-1b", "input": "hi", "stream": true, "context_length": 8192])
            #expect(response.events.first?.json["model_instance_id"] as? String == "acme/tiny-1b:2")
            #expect(response.eventNames.contains("model_load.end"))
            #expect(loadedIDs(sim, "acme/tiny-1b") == ["acme/tiny-1b", "acme/tiny-1b:2"])
        }
    }

    @Test func aJITLoadEvictsTheEarlierJITLoadedModelOnly() throws {
        try withSimulator { sim in
            _ = try post(sim, "/api/v1/models/load", ["model": "acme/toolsmith-12b"])
            _ = try chat(sim, ["model": "acme/thinker-8b", "input": "one"])
            _ = try chat(sim, ["model": "acme/vision-7b", "input": "two"])
            #expect(loadedIDs(sim, "acme/thinker-8b").isEmpty)
            #expect(loadedIDs(sim, "acme/vision-7b") == ["acme/vision-7b"])
            #expect(loadedIDs(sim, "acme/toolsmith-12b") == ["acme/toolsmith-12b"])
            #expect(loadedIDs(sim, "acme/tiny-1b") == ["acme/tiny-1b"])
        }
        try withSimulator(SimulatorOptions(autoEvict: false)) { sim in
            _ = try chat(sim, ["model": "acme/thinker-8b", "input": "one"])
            _ = try chat(sim, ["model": "acme/vision-7b", "input": "two"])
            #expect(loadedIDs(sim, "acme/thinker-8b") == ["acme/thinker-8b"])
        }
    }

    @Test func recallProvesServerSideContextAcrossAChain() throws {
        try withSimulator { sim in
            let fresh = try chat(sim, ["model": "acme/tiny-1b", "input": "please recall"])
            #expect(answer(fresh) == "Nothing earlier in this conversation.")
            let first = try chat(
                sim, ["model": "acme/tiny-1b", "input": "My name is Ada", "system_prompt": "Be brief."])
            let firstID = try #require(first.json["response_id"] as? String)
            let second = try chat(
                sim, ["model": "acme/tiny-1b", "input": "and I like tea", "previous_response_id": firstID])
            let secondID = try #require(second.json["response_id"] as? String)
            #expect(secondID != firstID)
            let third = try chat(
                sim,
                [
                    "model": "acme/tiny-1b", "input": "Recall what I said", "previous_response_id": secondID,
                    "stream": true
                ])
            let result = third.events.last?.json["result"] as? [String: Any]
            let output = result?["output"] as? [[String: Any]]
            #expect(output?.last?["content"] as? String == "Earlier you said: \"My name is Ada\"")
        }
    }

    @Test func storeFalseGivesNoResponseId() throws {
        try withSimulator { sim in
            let plain = try chat(sim, ["model": "acme/tiny-1b", "input": "title this", "store": false])
            #expect(plain.status == 200)
            #expect(plain.json["response_id"] == nil)
            let streamed = try chat(
                sim, ["model": "acme/tiny-1b", "input": "title this", "store": false, "stream": true])
            let result = streamed.events.last?.json["result"] as? [String: Any]
            #expect(result != nil)
            #expect(result?["response_id"] == nil)
        }
    }

    @Test func echoAnswersExactlyTheTextAfterIt() throws {
        try withSimulator { sim in
            let response = try chat(
                sim, ["model": "acme/tiny-1b", "input": "[[sim:reasoning]] echo: **bold** \u{1B}[31m\n- item"])
            #expect(answer(response) == "**bold** \u{1B}[31m\n- item")
        }
    }

    @Test func imagesAreCountedByVisionModels() throws {
        try withSimulator { sim in
            let image = ["type": "image", "data_url": "data:image/png;base64,iVBORw0KGgo="]
            let input: [[String: Any]] = [["type": "text", "content": "what is this"], image, image]
            let response = try chat(sim, ["model": "acme/vision-7b", "input": input])
            #expect(response.status == 200)
            #expect(answer(response)?.contains("2 images") == true)
            let refused = try chat(sim, ["model": "acme/tiny-1b", "input": input])
            #expect(refused.status == 400)
        }
    }

    struct Refusal: CustomTestStringConvertible, Sendable {
        var label: String
        var body: String
        var status: Int
        var message: String
        var param: String?
        var testDescription: String { label }
    }

    static let refusals: [Refusal] = [
        Refusal(
            label: "unknown keys", body: #"{"model":"acme/tiny-1b","input":"hi","stop":["x"],"max_tokens":5}"#,
            status: 400, message: "Unrecognized key(s) in object: 'max_tokens', 'stop'"),
        Refusal(
            label: "system prompt with previous id",
            body: #"{"model":"acme/tiny-1b","input":"hi","system_prompt":"s","previous_response_id":"resp_1"}"#,
            status: 500, message: "previous_response_id"),
        Refusal(
            label: "reasoning not allowed", body: #"{"model":"acme/thinker-8b","input":"hi","reasoning":"on"}"#,
            status: 400, message: "reasoning", param: "reasoning"),
        Refusal(
            label: "reasoning without capability", body: #"{"model":"acme/tiny-1b","input":"hi","reasoning":"low"}"#,
            status: 400, message: "reasoning", param: "reasoning"),
        Refusal(
            label: "message item type", body: #"{"model":"acme/tiny-1b","input":[{"type":"message","content":"hi"}]}"#,
            status: 400, message: "Expected 'text' | 'image'"),
        Refusal(
            label: "unknown model", body: #"{"model":"acme/nope","input":"hi","stream":true}"#,
            status: 404, message: "acme/nope"),
        Refusal(
            label: "embedding model", body: #"{"model":"acme/embed-small","input":"hi"}"#,
            status: 400, message: "embedding"),
        Refusal(
            label: "unknown previous response",
            body: #"{"model":"acme/tiny-1b","input":"hi","previous_response_id":"resp_deadbeef"}"#,
            status: 400, message: "not found", param: "previous_response_id"),
        Refusal(
            label: "JIT context over maximum",
            body: #"{"model":"acme/vision-7b","input":"hi","context_length":100000}"#,
            status: 400, message: "context_length", param: "context_length"),
        Refusal(
            label: "stream of the wrong type", body: #"{"model":"acme/tiny-1b","input":"hi","stream":"yes"}"#,
            status: 400, message: "boolean", param: "stream"),
        Refusal(
            label: "unknown directive", body: #"{"model":"acme/tiny-1b","input":"[[sim:explode]] hi"}"#,
            status: 400, message: "explode")
    ]

    @Test(arguments: refusals)
    func strictRequestsAreRefusedBeforeAnyStream(_ refusal: Refusal) throws {
        try withSimulator { sim in
            let response = try request(sim, "POST", "/api/v1/chat", body: refusal.body)
            #expect(response.status == refusal.status)
            #expect(response.headers["content-type"]?.hasPrefix("application/json") == true)
            #expect(response.errorMessage?.contains(refusal.message) == true, "\(response.text)")
            if let param = refusal.param {
                #expect(response.error["param"] as? String == param)
            }
        }
    }

    @Test func refusedReasoningCarriesInvalidValueCode() throws {
        try withSimulator { sim in
            let response = try chat(sim, ["model": "acme/multi-26b", "input": "hi", "reasoning": "high"])
            #expect(response.error["code"] as? String == "invalid_value")
            #expect(response.error["param"] as? String == "reasoning")
        }
    }

    @Test func contextOverflowIsAnErrorEventWhenStreamingAndA400Otherwise() throws {
        try withSimulator { sim in
            let long = String(repeating: "word ", count: 4000)
            let streamed = try chat(sim, ["model": "acme/tiny-1b", "input": long, "stream": true])
            #expect(streamed.status == 200)
            let names = streamed.eventNames
            #expect(names.suffix(2) == ["error", "chat.end"])
            let error = names.firstIndex(of: "error").map { streamed.events[$0].json["error"] as? [String: Any] } ?? nil
            #expect(error?["code"] as? String == "context_length_exceeded")
            #expect(!names.contains("message.start"))
            let plain = try chat(sim, ["model": "acme/tiny-1b", "input": long])
            #expect(plain.status == 400)
            #expect(plain.error["code"] as? String == "context_length_exceeded")
        }
    }
}

/// Runs of the same event name collapsed to one, for order checks.
func collapsed(_ names: [String]) -> [String] {
    names.reduce(into: []) { result, name in
        if result.last != name { result.append(name) }
    }
}

/// The last message content of a non-streamed chat result.
func answer(_ response: LoopbackResponse) -> String? {
    let output = response.json["output"] as? [[String: Any]] ?? []
    return output.last { $0["type"] as? String == "message" }?["content"] as? String
}
