import EditorRPC
import Foundation
import HTTP
import LMStudio
import Library
import Synchronization
import TestSupport
import Testing

/// rpc at the turn's edges: an editor's undo takes an exchange back from the library, and a conversation another
/// process changes is announced.
@Suite(.spawnsProcesses) struct TurnEdgeMethodTests {
    @Test func withdrawTakesTheLastExchangeBackSoRegenerateAnswersTheOneBefore() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let first = try #require(await rpc.call("chat/send", ["text": "echo:one"])?["result"])
        let conversation = try #require(first["conversationId"])
        // A reply still streaming: the editor cancels it, then withdraws it.
        let slow = await rpc.request(
            "chat/send", ["conversationId": conversation, "text": "[[sim:stall=30]] echo:two three four five"])
        var replyId: JSONValue?
        while replyId == nil, let message = await rpc.next() {
            if message["method"] == "chat/event", message["params"]?["type"] == "message.delta" {
                replyId = message["params"]?["messageId"]
            }
        }
        await rpc.notify("$/cancelRequest", ["id": slow])
        let reply = try #require(replyId)
        let withdrawn = try #require(
            await rpc.call("chat/withdraw", ["conversationId": conversation, "messageId": reply])?["result"],
            "the withdrawal waits for the cancelled send")
        #expect(withdrawn["messages"]?.array.compactMap { $0["text"]?.string } == ["echo:one", "one"])
        let got = try #require(await rpc.call("conversations/get", ["id": conversation])?["result"])
        #expect(got["messages"]?.array.count == 2, "the library no longer holds the exchange")

        let again = try #require(
            await rpc.call("chat/send", ["conversationId": conversation, "retry": true])?["result"])
        #expect(again["message"]?["text"] == "one", "regenerate answers the message the editor shows last")
        let alternatives = await rpc.call("conversations/alternatives", ["conversationId": conversation])
        #expect(alternatives?["result"]?["alternatives"]?.array.count == 2, "\(String(describing: alternatives))")
        #expect(await rpc.call("chat/send", ["conversationId": conversation, "text": "echo:two"])?["result"] != nil)
        let branch = try #require(
            await rpc.call("conversations/get", ["id": conversation])?["result"]?["messages"]?.array)
        let earlier = try #require(branch.first?["id"], "the first exchange's user message")
        let refused = await rpc.call("chat/withdraw", ["conversationId": conversation, "messageId": earlier])
        #expect(
            refused?.errorKind == "not_found",
            "an exchange other than the last is not withdrawn: \(String(describing: refused))")
        #expect(
            try #require(await rpc.call("conversations/get", ["id": conversation])?["result"]?["messages"]?.array).count
                == 4)
        await rpc.closeInput()
    }

    /// A conversation of two exchanges, and the id of its last answer.
    static func twoExchanges(_ rpc: RPCHarness) async throws -> (conversation: JSONValue, shown: JSONValue) {
        let conversation = try #require(await rpc.call("chat/send", ["text": "echo:one"])?["result"]?["conversationId"])
        let second = await rpc.call("chat/send", ["conversationId": conversation, "text": "echo:two"])
        return (conversation, try #require(second?["result"]?["message"]?["id"]))
    }

    /// Expects `withdrawn` (chat/withdraw's result) to end at the answer `shown`, and the next message to continue
    /// from that answer's server context.
    static func expectShownAgain(
        _ shown: JSONValue, withdrawn: JSONValue, conversation: JSONValue, rpc: RPCHarness, fixture: SimulatorFixture
    ) async throws {
        #expect(
            withdrawn["messages"]?.array.compactMap { $0["text"]?.string } == ["echo:one", "one", "echo:two", "two"],
            "\(withdrawn)")
        #expect(withdrawn["messages"]?.array.last?["id"] == shown, "the answer that was shown, not the newest")
        #expect(await rpc.call("chat/send", ["conversationId": conversation, "text": "echo:three"])?["result"] != nil)
        let answer = try LibraryStore(path: rpc.sandbox.libraryPath).message(id: try #require(shown.string))
        let responseId = try #require(answer?.responseId)
        #expect(
            fixture.requests(to: "/api/v1/chat").last?.field("previous_response_id") == responseId,
            "the next message follows the answer shown")
    }

    /// Undoing an edit takes the library back to what the edit replaced, as the editor's undo shows it: the message and
    /// the answer that was shown (here the older of two) are current again, and the next message continues from that
    /// answer's server context.
    @Test func withdrawingAnEditMakesWhatItReplacedCurrentAgain() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let (conversation, shown) = try await Self.twoExchanges(rpc)
        #expect(await rpc.call("chat/send", ["conversationId": conversation, "retry": true])?["result"] != nil)
        #expect(await rpc.call("conversations/chooseAlternative", ["messageId": shown])?["result"] != nil)
        let edit = await rpc.call(
            "chat/send", ["conversationId": conversation, "text": "echo:two edited", "edit": true])
        let editReply = try #require(edit?["result"]?["message"]?["id"])
        let withdrawn = try #require(
            await rpc.call("chat/withdraw", ["conversationId": conversation, "messageId": editReply])?["result"])
        try await Self.expectShownAgain(
            shown, withdrawn: withdrawn, conversation: conversation, rpc: rpc, fixture: fixture)
        await rpc.closeInput()
    }

    /// Undoing an answer asked again takes only that answer out of the library: the one shown before is current again
    /// (the exchange stays), and the next message continues from it.
    @Test func withdrawingAnAnswerAskedAgainBringsTheOneBeforeBack() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let (conversation, shown) = try await Self.twoExchanges(rpc)
        let again = try #require(
            await rpc.call("chat/send", ["conversationId": conversation, "retry": true])?["result"]?["message"]?["id"])
        let withdrawn = try #require(
            await rpc.call("chat/withdraw", ["conversationId": conversation, "messageId": again])?["result"])
        let alternatives = await rpc.call("conversations/alternatives", ["conversationId": conversation])
        #expect(alternatives?["result"]?["alternatives"]?.array.count == 1, "\(String(describing: alternatives))")
        try await Self.expectShownAgain(
            shown, withdrawn: withdrawn, conversation: conversation, rpc: rpc, fixture: fixture)
        await rpc.closeInput()
    }

    /// An edit or a regenerate names the last user message the editor shows: when another client has sent since, it
    /// is refused with its text handed back and the library unchanged, instead of acting on a message the user never
    /// saw; naming the message that is last, it goes ahead.
    @Test func anEditOfAMessageNoLongerLastIsRefused() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let first = try #require(await rpc.call("chat/send", ["text": "echo:one"])?["result"])
        let conversation = try #require(first["conversationId"])
        let shown = try #require(first["message"]?["parentId"], "the user message this editor shows last")
        let other = await rpc.call("chat/send", ["conversationId": conversation, "text": "echo:two from elsewhere"])
        let last = try #require(other?["result"]?["message"]?["parentId"])
        let edit = await rpc.call(
            "chat/send",
            ["conversationId": conversation, "text": "echo:one edited", "edit": true, "lastMessageId": shown])
        #expect(edit?.errorKind == "invalid_params", "\(String(describing: edit))")
        #expect(
            edit?["error"]?["message"]?.string?.contains("another client sent to it meanwhile") == true,
            "\(String(describing: edit))")
        #expect(edit?["error"]?["data"]?["returned"]?["text"] == "echo:one edited", "the edit is handed back")
        let retry = await rpc.call(
            "chat/send", ["conversationId": conversation, "retry": true, "lastMessageId": shown])
        #expect(retry?.errorKind == "invalid_params", "\(String(describing: retry))")
        let messages = try #require(
            await rpc.call("conversations/get", ["id": conversation])?["result"]?["messages"]?.array)
        #expect(
            messages.compactMap { $0["text"]?.string } == [
                "echo:one", "one", "echo:two from elsewhere", "two from elsewhere"
            ])
        let current = await rpc.call(
            "chat/send",
            ["conversationId": conversation, "text": "echo:two edited", "edit": true, "lastMessageId": last])
        #expect(current?["result"]?["message"]?["text"] == "two edited", "\(String(describing: current))")
        await rpc.closeInput()
    }

    /// A draft sent, from any face, is no longer a draft: the library drops it, so the other faces do not offer it
    /// again; a draft that is not what was sent stays.
    @Test func aDraftSentFromAnotherFaceLeavesTheLibrary() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let conversation = try #require(
            await rpc.call("chat/send", ["text": "echo:one"])?["result"]?["conversationId"]?.string)
        let library = try LibraryStore(path: rpc.sandbox.libraryPath)
        try library.setDraft(conversationId: conversation, text: "echo:the shared draft\n")
        #expect(
            await rpc.call("chat/send", ["conversationId": .string(conversation), "text": "echo:something else"])?[
                "result"] != nil)
        #expect(try library.conversation(id: conversation)?.draft == "echo:the shared draft\n")
        #expect(
            await rpc.call("chat/send", ["conversationId": .string(conversation), "text": "echo:the shared draft"])?[
                "result"] != nil)
        #expect((try library.conversation(id: conversation)?.draft ?? "").isEmpty)
        await rpc.closeInput()
    }

    /// Another process's change is announced; this editor's own, made since the last look, is not.
    @Test func aConversationChangedByAnotherProcessIsAnnounced() async throws {
        let fixture = try SimulatorFixture()
        let editor = try RPCHarness(serverURL: fixture.url)
        await editor.initialize()
        let shared = try #require(await editor.call("chat/send", ["text": "echo:shared"])?["result"]?["conversationId"])
        let own = try #require(
            await editor.call("chat/send", ["text": "echo:this editor's own"])?["result"]?["conversationId"])
        // Another process on the same library (another editor's llmster) sends to the shared conversation.
        let other = try RPCHarness(serverURL: fixture.url, librarySandbox: editor.sandbox)
        await other.initialize()
        #expect(
            await other.call("chat/send", ["conversationId": shared, "text": "echo:from elsewhere"])?["result"] != nil)
        var announced: [JSONValue] = []
        while !announced.contains(shared), let message = await editor.next() {
            if message["method"] == "conversation/changed", let id = message["params"]?["conversationId"] {
                announced.append(id)
            }
        }
        #expect(announced.contains(shared))
        #expect(!announced.contains(own), "this editor's own change is not announced to it: \(announced)")
        await other.closeInput()
        await editor.closeInput()
    }
}

/// rpc runs requests concurrently, but a conversation's turns are saved and answered in the order they were sent.
@Suite(.spawnsProcesses) struct TurnOrderMethodTests {
    /// Two hundred sends written at once to `llmster rpc` over real pipes, behind a first one still streaming.
    @Test func queuedSendsToOneConversationAreSavedAndAnsweredInOrder() async throws {
        let fixture = try SimulatorFixture()
        let sandbox = try Sandbox()
        let rpc = try RPCPipe(sandbox: sandbox, server: fixture.url)
        _ = await rpc.call("initialize", #"{"protocolVersion":1}"#)
        let first = try await #require(rpc.call("chat/send", #"{"text":"echo:turn start"}"#)?["result"])
        let conversation = try #require(first["conversationId"]?.string)
        rpc.send("chat/send", #"{"conversationId":"\#(conversation)","text":"[[sim:stall=1]] echo:a slow turn first"}"#)
        let ids = (0..<200).map {
            rpc.send("chat/send", #"{"conversationId":"\#(conversation)","text":"echo:turn \#($0)"}"#)
        }
        for id in ids { await #expect(rpc.response(to: id, seconds: 30)?["result"]?["status"] == "complete") }
        let answered = rpc.transcript.split(separator: "\n").compactMap { line -> Int? in
            guard let message = try? JSONDecoder().decode(JSONValue.self, from: Data(line.utf8)),
                message["result"] != nil,
                case .number(let id)? = message["id"]
            else { return nil }
            return Int(id)
        }.filter { ids.contains($0) }
        #expect(answered == ids, "answered in the order sent")
        let got = try await #require(rpc.call("conversations/get", #"{"id":"\#(conversation)"}"#)?["result"])
        let texts = got["messages"]?.array.compactMap { $0["role"] == "user" ? $0["text"]?.string : nil }
        #expect(
            texts == ["echo:turn start", "[[sim:stall=1]] echo:a slow turn first"]
                + (0..<200).map { "echo:turn \($0)" },
            "saved in the order sent")
    }
}

/// A draft read after a write sent without waiting (an editor saves its input on leaving the buffer and goes on)
/// finds that write: a conversation's draft requests run in the order they arrived, on a line apart from its turns.
/// A turn waits for the draft requests before it (a send clears the draft it sends); a draft never waits for a turn.
@Suite struct DraftOrderMethodTests {
    /// A server whose ordered methods record when they start (and a held one when it ends) in `steps`: a request
    /// with `"hold": true` waits for `release`. The recorded names are the method's last word and the conversation.
    private final class RecordingServer {
        let rpc: RPCHarness
        let log = StepLog()
        let release = Gate()
        private var results: [JSONValue: JSONValue] = [:]

        /// What the handlers recorded, in order.
        var steps: [String] { log.steps.withLock { $0 } }

        init() throws {
            var methods = MethodRegistry.standard
            let log = log
            let release = release
            // Editors open a chat, and load its draft, with conversations/get.
            for (method, name, parameter) in [
                ("drafts/set", "set", "conversationId"), ("drafts/get", "get", "conversationId"),
                ("conversations/get", "open", "id"), ("chat/send", "send", "conversationId")
            ] {
                methods.register(method) { _, params in
                    let step = "\(name) \(try params.string(parameter))"
                    log.steps.withLock { $0.append(step) }
                    if try params.bool("hold") {
                        await release.wait()
                        log.steps.withLock { $0.append(step + " done") }
                    }
                    return .null
                }
            }
            rpc = try RPCHarness(serverURL: "http://127.0.0.1:9", methods: methods)
        }

        /// Reads answers, whatever their order, until `id`'s is in; then the ids answered so far.
        @discardableResult
        func read(until id: JSONValue) async -> Set<JSONValue> {
            while results[id] == nil, let message = await rpc.next() {
                if let answered = message["id"] { results[answered] = message["result"] ?? message }
            }
            return Set(results.keys)
        }
    }

    /// The write is held until another conversation's draft has been read; the reads sent after the write (the
    /// draft's and the conversation's) must wait for it, and the other conversation must not.
    @Test func aDraftReadWaitsForTheWriteSentBeforeItAndOnlyForIt() async throws {
        let server = try RecordingServer()
        let rpc = server.rpc
        await rpc.initialize()
        let set = await rpc.request("drafts/set", ["conversationId": "first", "text": "half a thought", "hold": true])
        let get = await rpc.request("drafts/get", ["conversationId": "first"])
        let open = await rpc.request("conversations/get", ["id": "first"])
        let other = await rpc.request("drafts/get", ["conversationId": "second"])
        #expect(
            await server.read(until: other) == [other], "only the other conversation is answered while the write waits")
        await server.release.open()
        await server.read(until: set)
        await server.read(until: get)
        #expect(await server.read(until: open) == [other, set, get, open])
        #expect(
            server.steps == ["set first", "get second", "set first done", "get first", "open first"])
        await rpc.closeInput()
    }

    /// A send waits for the draft saved just before it, while a draft read sent behind a held send is answered.
    @Test func aSendWaitsForTheDraftSavedBeforeItButNoDraftWaitsForASend() async throws {
        let server = try RecordingServer()
        let rpc = server.rpc
        await rpc.initialize()
        let set = await rpc.request("drafts/set", ["conversationId": "first", "text": "hello", "hold": true])
        let send = await rpc.request("chat/send", ["conversationId": "first", "text": "hello"])
        let held = await rpc.request("chat/send", ["conversationId": "second", "text": "slow", "hold": true])
        let read = await rpc.request("drafts/get", ["conversationId": "second"])
        #expect(await server.read(until: read) == [read], "the draft is read while the send before it is held")
        await server.release.open()
        await server.read(until: set)
        await server.read(until: held)
        #expect(await server.read(until: send) == [set, send, held, read])
        let steps = server.steps
        #expect(
            steps.firstIndex(of: "set first done")! < steps.firstIndex(of: "send first")!,
            "the send started after the draft's save ended: \(steps)")
        await rpc.closeInput()
    }
}

/// Steps recorded by request handlers, which run on any thread.
private final class StepLog: Sendable {
    let steps = Mutex<[String]>([])
}

/// Holds its waiters until it is opened.
private actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        guard !isOpen else { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}

/// The load policy in rpc, as in the REPL and `ask`.
@Suite(.spawnsProcesses) struct LoadPolicyMethodTests {
    @Test func chatSendLoadsTheModelAndUnloadsThePreviousChatModel() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        #expect(await rpc.call("chat/send", ["text": "echo:one", "model": "acme/tiny-1b"])?["result"] != nil)
        let id = await rpc.request("chat/send", ["text": "echo:two", "model": "acme/thinker-8b"])
        let (response, notifications) = await rpc.response(to: id)
        #expect(response?["result"]?["status"] == "complete", "\(String(describing: response))")
        #expect(notifications.contains { $0["params"]?["type"] == "model_load.progress" }, "the load reads as progress")
        let loaded = try await LMStudioClient(server: fixture.url, token: nil, transport: CurlTransport()).models()
            .flatMap { $0.loadedInstances.map(\.id) }
        #expect(loaded == ["acme/thinker-8b"], "one chat model loaded, as `llmster ps` would list: \(loaded)")
        await rpc.closeInput()
    }
}

/// A changed system prompt starts a fresh context for a retry as for a message: the engine's rule, not rpc's.
@Suite(.spawnsProcesses) struct RetryPromptMethodTests {
    @Test func aRetryWithANewSystemPromptStartsAFreshContext() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let conversation = try #require(await rpc.call("chat/send", ["text": "echo:one"])?["result"]?["conversationId"])
        #expect(await rpc.call("chat/send", ["conversationId": conversation, "text": "echo:two"])?["result"] != nil)
        let retried = try #require(
            await rpc.call("chat/send", ["conversationId": conversation, "retry": true, "systemPrompt": "Be brief."])?[
                "result"])
        #expect(retried["freshContext"] == .bool(true), "\(retried)")
        let request = try #require(fixture.requests(to: "/api/v1/chat").last)
        #expect(request.field("system_prompt") == "Be brief." && request.field("previous_response_id") == nil)
        await rpc.closeInput()
    }

    /// A retry in a context the server lost is the same decision a message gets, handed back as a retry, and the
    /// load policy holds for it: the conversation's model is loaded again and the other unloaded.
    @Test func aRetryInALostContextNeedsADecisionAndLoadsUnderThePolicy() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let conversation = try #require(
            await rpc.call("chat/send", ["text": "echo:one", "model": "acme/thinker-8b"])?["result"]?["conversationId"])
        #expect(await rpc.call("chat/send", ["conversationId": conversation, "text": "echo:two"])?["result"] != nil)
        fixture.simulator.reset()
        let refused = try #require(
            await rpc.call("chat/send", ["conversationId": conversation, "retry": true])?["error"])
        #expect(
            refused["data"]?["kind"] == "continuation_lost" && refused["data"]?["outcome"] == "needs_decision",
            "\(refused)")
        #expect(refused["data"]?["returned"]?["kind"] == "retry", "\(refused)")
        let retried = try #require(
            await rpc.call("chat/send", ["conversationId": conversation, "retry": true, "freshContext": true])?[
                "result"])
        #expect(retried["status"] == "complete" && retried["freshContext"] == .bool(true), "\(retried)")
        let loaded = try await LMStudioClient(server: fixture.url, token: nil, transport: CurlTransport()).models()
            .flatMap { $0.loadedInstances.map(\.id) }
        #expect(loaded == ["acme/thinker-8b"], "after the reset only acme/tiny-1b was loaded: \(loaded)")
        await rpc.closeInput()
    }

    /// Only an editor opening a conversation (`open: true`) makes it the one `llmster -c` continues; a lookup does not.
    @Test func onlyOpeningAConversationCountsAsUsingIt() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let first = try #require(
            await rpc.call("chat/send", ["text": "echo:first"])?["result"]?["conversationId"]?.string)
        let second = try #require(
            await rpc.call("chat/send", ["text": "echo:second"])?["result"]?["conversationId"]?.string)
        _ = await rpc.call("conversations/get", ["id": .string(first)])
        #expect(
            try LibraryStore(path: rpc.sandbox.libraryPath).mostRecentConversation()?.id == second, "a lookup is no use"
        )
        _ = await rpc.call("conversations/get", ["id": .string(first), "open": true])
        #expect(try LibraryStore(path: rpc.sandbox.libraryPath).mostRecentConversation()?.id == first)
        await rpc.closeInput()
    }

    /// A message that would fill the context answers with the decision, its figures and choices; `onOverflow: "grow"`
    /// sends it after reloading the model with the larger context.
    @Test func anOverflowDecisionOffersAGrowthThatOnOverflowTakes() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize()
        let conversation = try #require(await rpc.call("chat/send", ["text": "echo:one"])?["result"]?["conversationId"])
        let large = "echo:" + String(repeating: "word ", count: 3_040)
        let refused = try #require(
            await rpc.call("chat/send", ["conversationId": conversation, "text": .string(large)])?["error"])
        let decision = try #require(refused["data"]?["decision"])
        #expect(
            decision["type"] == "overflow" && decision["growTo"] == 8192 && decision["model"] == "acme/tiny-1b",
            "\(decision)")
        #expect(decision["choices"] == .array(["grow", "recap", "send"]), "\(decision)")
        let grown = try #require(
            await rpc.call(
                "chat/send", ["conversationId": conversation, "text": .string(large), "onOverflow": "grow"])?["result"])
        #expect(grown["status"] == "complete", "\(grown)")
        let contexts = try await LMStudioClient(server: fixture.url, token: nil, transport: CurlTransport()).models()
            .flatMap { $0.loadedInstances.map(\.config.contextLength) }
        #expect(contexts == [8192], "\(contexts)")
        await rpc.closeInput()
    }

    /// Reasoning in `<think>` tags reaches an editor as reasoning, and a tool call being named as `tool_call.name`.
    @Test func thinkTagsAndANamedToolCallReachTheEditorAsTheyShow() async throws {
        let fixture = try SimulatorFixture()
        let rpc = try RPCHarness(serverURL: fixture.url)
        await rpc.initialize(["coalesceMilliseconds": 0])
        let thinking = await rpc.request("chat/send", ["text": "[[sim:think-tags]] echo:the answer"])
        let (answered, events) = await rpc.response(to: thinking)
        let texts = { (type: String) in
            events.filter { $0["params"]?["type"] == .string(type) }.compactMap { $0["params"]?["text"]?.string }
                .joined()
        }
        #expect(answered?["result"]?["message"]?["text"] == "the answer", "\(String(describing: answered))")
        #expect(
            texts("message.delta") == "the answer" && texts("reasoning.delta").hasPrefix("The user wrote"), "\(events)")
        let naming = await rpc.request(
            "chat/send", ["text": "[[sim:tools,tool-name=1]] find docs", "model": "acme/toolsmith-12b"])
        let (_, toolEvents) = await rpc.response(to: naming)
        #expect(
            toolEvents.contains { $0["params"]?["type"] == "tool_call.name" && $0["params"]?["name"] == "search_docs" },
            "\(toolEvents)")
        await rpc.closeInput()
    }
}
