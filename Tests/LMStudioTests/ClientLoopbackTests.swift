import Foundation
import HTTP
import LMStudio
import Simulator
import TestSupport
import Testing

/// `LMStudioClient` against the simulator over loopback: every endpoint and the user-facing error messages.
@Suite struct ClientLoopbackTests {
    func client(_ fixture: SimulatorFixture, token: String? = nil) -> LMStudioClient {
        LMStudioClient(server: fixture.url, token: token, transport: CurlTransport())
    }

    /// A web page at the address (HTTP 200, text/html) is named as such, not reported as a broken stream.
    @Test func anHTMLPageIsNotLMStudio() async throws {
        let fixture = try SimulatorFixture()
        do {
            for try await _ in try await client(fixture).streamChat(
                ChatRequest(model: "acme/tiny-1b", input: .text("[[sim:html]] hi")))
            {}
            Issue.record("an HTML page was read as a chat stream")
        } catch let error as LMStudioError {
            #expect(error == .notLMStudio(server: fixture.url, contentType: "text/html; charset=utf-8"))
            #expect(
                error.description.contains("answered with an HTML page")
                    && error.description.contains("not LM Studio's API"))
        }
    }

    /// A server that goes silent mid-reply stops the stream with an error that names the idle timeout.
    @Test func aSilentServerStopsAtTheIdleTimeout() async throws {
        let fixture = try SimulatorFixture()
        let client = LMStudioClient(
            server: fixture.url, token: nil, transport: CurlTransport(), timeouts: HTTPTimeouts(connect: 5, idle: 1))
        var text = ""
        do {
            for try await event in try await client.streamChat(
                ChatRequest(model: "acme/tiny-1b", input: .text("[[sim:stall=60]] echo:alpha beta gamma delta")))
            {
                if case .messageDelta(let delta) = event { text += delta }
            }
            Issue.record("the stall did not stop the stream")
        } catch let error as LMStudioError {
            #expect(error == .timedOut(server: fixture.url, phase: .idle))
            #expect(error.description.contains("idle timeout"))
        }
        #expect(text.hasPrefix("alph"), "the deltas before the stall arrived")
    }

    @Test func everyEndpoint() async throws {
        let fixture = try SimulatorFixture()
        let client = client(fixture)
        #expect(try await client.greeting().lmstudio)

        let models = try await client.models()
        #expect(models.map(\.key).contains("acme/thinker-8b"))
        #expect(models.first { $0.key == "acme/embed-small" }?.type == .embedding)
        #expect(models.first { $0.key == "acme/tiny-1b" }?.loadedInstances.first?.config.contextLength == 4096)

        let loaded = try await client.load(LoadRequest(model: "acme/thinker-8b", contextLength: 8192))
        #expect(loaded.instanceId == "acme/thinker-8b")
        let second = try await client.load(LoadRequest(model: "acme/thinker-8b"))
        #expect(second.instanceId == "acme/thinker-8b:2")
        try await client.unload(instanceId: "acme/thinker-8b:2")
        #expect(
            try await client.models().first { $0.key == "acme/thinker-8b" }?.loadedInstances.map(\.id) == [
                "acme/thinker-8b"
            ])

        let already = try await client.download(DownloadRequest(model: "acme/tiny-1b"))
        #expect(already.status == "already_downloaded")
        let job = try await client.download(DownloadRequest(model: "acme/new-3b"))
        let jobId = try #require(job.jobId)
        var status = job
        for _ in 0..<8 where status.status != "completed" { status = try await client.downloadStatus(jobId: jobId) }
        #expect(status.status == "completed")

        let result = try await client.chat(ChatRequest(model: "acme/tiny-1b", input: .text("echo:plain")))
        #expect(result.output == [.message("plain")])
        #expect(result.responseId?.hasPrefix("resp_") == true)

        var events: [ChatEvent] = []
        for try await event in try await client.streamChat(
            ChatRequest(
                model: "acme/thinker-8b", input: .text("echo:streamed"),
                previousResponseId: nil))
        {
            events.append(event)
        }
        #expect(events.first == .chatStart(modelInstanceId: "acme/thinker-8b"))
        #expect(events.contains(.reasoningStart))
        guard case .chatEnd(let end) = events.last else {
            Issue.record("no chat.end")
            return
        }
        #expect(end.output.last == .message("streamed"))
    }

    @Test func droppedConnectionMidReplyIsConnectionLostWithDetail() async throws {
        let fixture = try SimulatorFixture()
        var deltas = 0
        do {
            for try await event in try await client(fixture).streamChat(
                ChatRequest(
                    model: "acme/tiny-1b", input: .text("[[sim:drop-after=9]] echo:one two three four five six")))
            {
                if case .messageDelta = event { deltas += 1 }
            }
            Issue.record("a dropped connection ended the stream quietly")
        } catch let error as LMStudioError {
            guard case .replyConnectionLost(let detail) = error else {
                Issue.record("got \(error)")
                return
            }
            #expect(!detail.isEmpty)
            #expect(error.description.hasPrefix("connection lost ("))
        }
        #expect(deltas > 0, "the deltas before the drop arrive first")
    }

    @Test func tokenMissingAndRejected() async throws {
        let token = "sk-lm-abcd1234:abcdefghij0123456789"
        let fixture = try SimulatorFixture(SimulatorOptions(requireToken: token))
        await #expect(throws: LMStudioError.tokenMissing) { try await client(fixture).models() }
        await #expect(throws: LMStudioError.tokenRejected) {
            try await client(fixture, token: "sk-lm-zzzz9999:zzzzzzzzzz9999999999").models()
        }
        #expect(try await client(fixture, token: token).models().isEmpty == false)
        #expect(LMStudioError.tokenMissing.description.contains("LM_API_TOKEN"))
    }

    @Test func badRequestsCarryTheServersMessage() async throws {
        let fixture = try SimulatorFixture()
        do {
            _ = try await client(fixture).chat(
                ChatRequest(model: "acme/thinker-8b", input: .text("hi"), reasoning: "xhigh"))
            Issue.record("an invalid reasoning value was accepted")
        } catch let error as LMStudioError {
            guard case .invalidRequest(_, let param, let code) = error else {
                Issue.record("got \(error)")
                return
            }
            #expect(param == "reasoning")
            #expect(code == "invalid_value")
            #expect(error.description.contains("reasoning"))
        }
        await #expect(throws: LMStudioError.self) {
            try await client(fixture).chat(
                ChatRequest(model: "acme/tiny-1b", input: .text("hi"), previousResponseId: "resp_unknown"))
        }
    }

    @Test func unknownModelIsNotFound() async throws {
        let fixture = try SimulatorFixture()
        do {
            _ = try await client(fixture).streamChat(ChatRequest(model: "acme/nothing", input: .text("hi")))
            Issue.record("an unknown model was accepted")
        } catch let error as LMStudioError {
            guard case .modelNotFound = error else {
                Issue.record("got \(error)")
                return
            }
            #expect(error.description.contains("llmster models"))
        }
    }

    @Test func unreachablePortAndOldServer() async throws {
        let stopped = try SimulatorFixture()
        let url = stopped.url
        stopped.simulator.stop()
        do {
            _ = try await LMStudioClient(server: url, token: nil, transport: CurlTransport()).models()
            Issue.record("a stopped server answered")
        } catch let error as LMStudioError {
            #expect(
                error.description
                    == "LM Studio is not reachable at \(url) (connection refused). Is the server running? Try `lms server start`."
            )
        }
        let legacy = try SimulatorFixture(SimulatorOptions(legacy: true))
        await #expect(throws: LMStudioError.serverTooOld) { try await client(legacy).models() }
        #expect(LMStudioError.serverTooOld.description.contains("0.4 or newer"))
    }
}
