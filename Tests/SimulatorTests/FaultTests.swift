import Foundation
import Simulator
import Testing

@Suite struct FaultTests {
    private func stream(
        _ sim: Simulator, _ input: String, model: String = "acme/tiny-1b", store: Bool = true,
        headers: [String: String] = [:]
    ) throws -> LoopbackResponse {
        try chat(sim, ["model": model, "input": input, "stream": true, "store": store], headers: headers)
    }

    @Test func dropAfterLeavesNoChatEnd() throws {
        try withSimulator { sim in
            let response = try stream(sim, "[[sim:drop-after=5]] hi")
            #expect(response.status == 200)
            #expect(!response.complete)
            #expect(response.eventNames.count == 5)
            #expect(!response.eventNames.contains("chat.end"))
        }
    }

    @Test func dropAfterOnANonStreamedChatSendsNothing() throws {
        try withSimulator { sim in
            #expect(throws: LoopbackError.self) {
                try chat(sim, ["model": "acme/tiny-1b", "input": "[[sim:drop-after=1]] hi"])
            }
        }
    }

    @Test(arguments: ["split=every", "split=random", "split=random seed=7"])
    func splitWritesYieldTheSameBytes(_ directive: String) throws {
        try withSimulator { sim in
            let whole = try stream(sim, "same bytes please", store: false)
            let split = try stream(sim, "same bytes please", store: false, headers: ["X-Sim-Faults": directive])
            #expect(split.complete)
            #expect(split.body == whole.body)
            #expect(split.eventNames.last == "chat.end")
        }
    }

    @Test(arguments: [
        ("error", "internal_error"), ("error=model_not_found", "model_not_found"),
        ("mcp-error", "mcp_connection_error"), ("plugin-error", "plugin_connection_error")
    ])
    func errorFaultsSendAnErrorEventThenChatEnd(_ directive: String, _ type: String) throws {
        try withSimulator { sim in
            let response = try stream(sim, "[[sim:\(directive)]] hi")
            #expect(response.complete)
            #expect(response.eventNames.suffix(2) == ["error", "chat.end"])
            let error = response.events.first { $0.name == "error" }?.json["error"] as? [String: Any]
            #expect(error?["type"] as? String == type)
            #expect(error?["message"] is String)
        }
    }

    @Test func errorFaultOnANonStreamedChatIsAnHTTPError() throws {
        try withSimulator { sim in
            let response = try chat(sim, ["model": "acme/tiny-1b", "input": "[[sim:mcp-error]] hi"])
            #expect(response.status == 500)
            #expect(response.error["type"] as? String == "mcp_connection_error")
        }
    }

    @Test func toolsInterleaveReasoningToolCallsAndMessages() throws {
        try withSimulator { sim in
            let response = try stream(sim, "[[sim:tools]] find sse docs")
            let names = collapsed(response.eventNames)
            #expect(
                names == [
                    "chat.start", "prompt_processing.start", "prompt_processing.progress", "prompt_processing.end",
                    "reasoning.start", "reasoning.delta", "reasoning.end",
                    "tool_call.start", "tool_call.arguments", "tool_call.success",
                    "message.start", "message.delta", "message.end",
                    "tool_call.start", "tool_call.failure",
                    "message.start", "message.delta", "message.end", "chat.end"
                ])
            let success = try #require(response.events.first { $0.name == "tool_call.success" }?.json)
            #expect(success["tool"] as? String == "search_docs")
            #expect((success["arguments"] as? [String: Any])?["query"] as? String == "sse")
            #expect(((success["output"] as? String)?.utf8.count ?? 0) > 1000)
            #expect((success["provider_info"] as? [String: Any])?["plugin_id"] as? String == "mcp/docs")
            let failure = try #require(response.events.first { $0.name == "tool_call.failure" }?.json)
            #expect(failure["reason"] as? String == "Cannot find tool open_browser")
            #expect((failure["metadata"] as? [String: Any])?["type"] as? String == "invalid_name")
            let output = (response.events.last?.json["result"] as? [String: Any])?["output"] as? [[String: Any]] ?? []
            #expect(
                output.compactMap { $0["type"] as? String } == [
                    "reasoning", "tool_call", "message", "invalid_tool_call", "message"
                ])
        }
    }

    @Test func escapeFaultPutsControlSequencesInAnswerAndReasoning() throws {
        try withSimulator { sim in
            let response = try stream(sim, "[[sim:escape]] hi")
            let output = (response.events.last?.json["result"] as? [String: Any])?["output"] as? [[String: Any]] ?? []
            for item in output {
                let content = item["content"] as? String ?? ""
                #expect(content.contains("\u{1B}[2J"))
                #expect(content.contains("\u{1B}]52;c;"))
                #expect(content.contains("\u{1B}]0;"))
                #expect(content.contains("\u{07}"))
                #expect(content.contains("\u{9B}"))
            }
            #expect(output.compactMap { $0["type"] as? String } == ["reasoning", "message"])
        }
    }

    @Test func largeFaultGivesAboutThatManyBytes() throws {
        try withSimulator { sim in
            let response = try chat(sim, ["model": "acme/tiny-1b", "input": "[[sim:large=20000]] big"])
            let text = answer(response) ?? ""
            #expect(text.utf8.count >= 20000)
            #expect(text.utf8.count < 21000)
            #expect(text.contains("```"))
            #expect(text.contains("| column | value |"))
        }
    }

    /// The stream bench's prose reply: paragraphs with emphasis, code spans and links, and no other block.
    @Test func proseMakesTheLargeTextParagraphsOnly() throws {
        try withSimulator { sim in
            let response = try chat(sim, ["model": "acme/tiny-1b", "input": "[[sim:large=20000,prose]] big"])
            let text = answer(response) ?? ""
            #expect(text.utf8.count >= 20000 && text.utf8.count < 21000)
            #expect(text.contains("**strong text**") && text.contains("`inline code`") && text.contains("](https://"))
            let blocks = text.components(separatedBy: "\n\n").filter { !$0.isEmpty }
            #expect(blocks.count > 20)
            for block in blocks {
                #expect(block.hasPrefix("Paragraph "), "only paragraphs: \(block.prefix(40))")
            }
        }
    }

    @Test func statusFaultAnswersThatStatus() throws {
        try withSimulator { sim in
            let response = try stream(sim, "[[sim:status=429]] hi")
            #expect(response.status == 429)
            #expect(response.errorMessage != nil)
        }
    }

    @Test func doneMarkerFollowsChatEnd() throws {
        try withSimulator { sim in
            let response = try stream(sim, "hi [[sim:done-marker]]")
            #expect(response.text.hasSuffix("event: chat.end\n") == false)
            #expect(response.text.hasSuffix("data: [DONE]\n\n"))
            #expect(response.eventNames.last == "chat.end")
        }
    }

    @Test func stallStillCompletesTheReply() throws {
        try withSimulator { sim in
            let response = try stream(sim, "[[sim:stall=0.01]] hi")
            #expect(response.complete)
            #expect(response.eventNames.last == "chat.end")
        }
    }

    @Test func stopEndsAStalledStreamWithoutChatEnd() throws {
        let sim = Simulator()
        try sim.start()
        defer { sim.stop() }
        let body =
            #"{"model":"acme/tiny-1b","input":"[[sim:stall=600]] a reply long enough to stall in","stream":true}"#
        let connection = try LoopbackConnection(sim, "POST", "/api/v1/chat", body: body)
        #expect(connection.read(until: "message.delta"))
        sim.stop()
        let response = try connection.response()
        #expect(!response.complete)
        #expect(response.eventNames.contains("message.delta"))
        #expect(!response.eventNames.contains("chat.end"))
    }

    @Test func slowLoadSendsManyProgressEvents() throws {
        try withSimulator { sim in
            let response = try stream(sim, "[[sim:slow-load]] hi", model: "acme/vision-7b")
            #expect(response.eventNames.filter { $0 == "model_load.progress" }.count == 20)
            #expect(response.eventNames.last == "chat.end")
        }
    }

    @Test func directivesAreRemovedBeforeTheInputIsQuoted() throws {
        try withSimulator { sim in
            let response = try chat(sim, ["model": "acme/tiny-1b", "input": "[[sim:reasoning, split=every]] quote me"])
            #expect(answer(response)?.hasPrefix("You said: *quote me*") == true)
            let output = response.json["output"] as? [[String: Any]] ?? []
            #expect(output.first?["type"] as? String == "reasoning")
        }
    }

    @Test func defaultFaultsApplyToEveryChat() throws {
        try withSimulator(SimulatorOptions(defaultFaults: "drop-after=2")) { sim in
            let response = try stream(sim, "hi")
            #expect(response.eventNames.count == 2)
            #expect(!response.complete)
        }
    }

    @Test func headerDirectivesApplyAndBadOnesAreRefused() throws {
        try withSimulator { sim in
            let dropped = try stream(sim, "hi", headers: ["X-Sim-Faults": "drop-after=3, reasoning"])
            #expect(dropped.eventNames.count == 3)
            let refused = try stream(sim, "hi", headers: ["X-Sim-Faults": "stall=forever"])
            #expect(refused.status == 400)
            #expect(refused.errorMessage?.contains("stall=forever") == true)
        }
    }

    @Test func invalidDefaultFaultsRefuseToStart() {
        let sim = Simulator(options: SimulatorOptions(defaultFaults: "split=sideways"))
        #expect(throws: SimulatorError.invalidDirective("split=sideways")) { try sim.start() }
    }

    @Test func integrationsOffRefusesOnlyARequestWithIntegrations() throws {
        try withSimulator { sim in
            let refused = try chat(
                sim,
                [
                    "model": "acme/tiny-1b", "input": "[[sim:integrations-off]] hi",
                    "integrations": [["type": "plugin", "id": "mcp/playwright"]]
                ])
            #expect(refused.status == 400)
            let error = refused.json["error"] as? [String: Any]
            #expect(
                error?["param"] as? String == "integrations" && error?["type"] as? String == "invalid_request",
                "\(refused.text)")
            #expect(try chat(sim, ["model": "acme/tiny-1b", "input": "[[sim:integrations-off]] hi"]).status == 200)
        }
    }
}
