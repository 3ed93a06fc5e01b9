import Foundation
import Simulator
import Testing

@Suite struct ServerTests {
    @Test func greetingSaysLMStudio() throws {
        try withSimulator { sim in
            let response = try request(sim, "GET", "/lmstudio-greeting")
            #expect(response.status == 200)
            #expect(response.json["lmstudio"] as? Bool == true)
        }
    }

    @Test func modelsListTheCatalogue() throws {
        try withSimulator { sim in
            let models = try request(sim, "GET", "/api/v1/models").json["models"] as? [[String: Any]] ?? []
            let keys = models.compactMap { $0["key"] as? String }
            #expect(
                keys == [
                    "acme/tiny-1b", "acme/thinker-8b", "acme/vision-7b", "acme/toolsmith-12b", "acme/multi-26b",
                    "acme/embed-small"
                ])
            for model in models {
                for field in [
                    "type", "publisher", "key", "display_name", "size_bytes", "loaded_instances", "max_context_length",
                    "format"
                ] {
                    #expect(model[field] != nil, "\(model["key"] ?? "?") lacks \(field)")
                }
            }
            let tiny = try #require(models.first { $0["key"] as? String == "acme/tiny-1b" })
            let instances = tiny["loaded_instances"] as? [[String: Any]] ?? []
            #expect(instances.count == 1)
            #expect(instances.first?["id"] as? String == "acme/tiny-1b")
            #expect((instances.first?["config"] as? [String: Any])?["context_length"] as? Int == 4096)
            let embed = try #require(models.first { $0["key"] as? String == "acme/embed-small" })
            #expect(embed["type"] as? String == "embedding")
            #expect(embed["capabilities"] == nil)
            #expect(embed["architecture"] == nil)
            let thinker = try #require(models.first { $0["key"] as? String == "acme/thinker-8b" })
            let reasoning = (thinker["capabilities"] as? [String: Any])?["reasoning"] as? [String: Any]
            #expect(reasoning?["allowed_options"] as? [String] == ["off", "low", "medium", "high"])
            let multi = try #require(models.first { $0["key"] as? String == "acme/multi-26b" })
            #expect(multi["params_string"] as? String == "26B-A4B")
            #expect(multi["selected_variant"] is String)
            let vision = try #require(models.first { $0["key"] as? String == "acme/vision-7b" })
            #expect((vision["quantization"] as? [String: Any])?["bits_per_weight"] is NSNull)
        }
    }

    @Test func loadingTwiceAddsASecondInstanceAndUnloadRemovesIt() throws {
        try withSimulator { sim in
            let second = try post(
                sim, "/api/v1/models/load", ["model": "acme/tiny-1b", "context_length": 8192, "echo_load_config": true])
            #expect(second.status == 200)
            #expect(second.json["instance_id"] as? String == "acme/tiny-1b:2")
            #expect(second.json["status"] as? String == "loaded")
            #expect((second.json["load_config"] as? [String: Any])?["context_length"] as? Int == 8192)
            let third = try post(sim, "/api/v1/models/load", ["model": "acme/tiny-1b"])
            #expect(third.json["instance_id"] as? String == "acme/tiny-1b:3")

            let unload = try post(sim, "/api/v1/models/unload", ["instance_id": "acme/tiny-1b:2"])
            #expect(unload.status == 200)
            #expect(unload.json["instance_id"] as? String == "acme/tiny-1b:2")
            #expect(loadedIDs(sim, "acme/tiny-1b") == ["acme/tiny-1b", "acme/tiny-1b:3"])
        }
    }

    @Test func loadRefusesContextOverTheMaximumAndUnknownModels() throws {
        try withSimulator { sim in
            let tooBig = try post(sim, "/api/v1/models/load", ["model": "acme/tiny-1b", "context_length": 65536])
            #expect(tooBig.status == 400)
            let unknown = try post(sim, "/api/v1/models/load", ["model": "acme/nope"])
            #expect(unknown.status == 404)
            #expect(unknown.error["code"] as? String == "model_not_found")
        }
    }

    @Test func unloadingAnUnknownInstanceIs404() throws {
        try withSimulator { sim in
            let response = try post(sim, "/api/v1/models/unload", ["instance_id": "acme/vision-7b"])
            #expect(response.status == 404)
            #expect(response.errorMessage?.contains("acme/vision-7b") == true)
        }
    }

    @Test func unknownEndpointAnswers200WithAStringError() throws {
        try withSimulator { sim in
            let response = try request(sim, "GET", "/x")
            #expect(response.status == 200)
            #expect(response.json["error"] as? String == "Unexpected endpoint or method. (GET /x)")
            let wrongMethod = try request(sim, "GET", "/api/v1/chat")
            #expect(wrongMethod.json["error"] as? String == "Unexpected endpoint or method. (GET /api/v1/chat)")
        }
    }

    @Test func legacyServerAnswersEveryV1PathAsUnexpected() throws {
        try withSimulator(SimulatorOptions(legacy: true)) { sim in
            let chat = try chat(sim, ["model": "acme/tiny-1b", "input": "hi"])
            #expect(chat.status == 200)
            #expect(chat.json["error"] as? String == "Unexpected endpoint or method. (POST /api/v1/chat)")
            let models = try request(sim, "GET", "/api/v1/models")
            #expect(models.json["error"] as? String == "Unexpected endpoint or method. (GET /api/v1/models)")
            #expect(try request(sim, "GET", "/lmstudio-greeting").json["lmstudio"] as? Bool == true)
        }
    }

    @Test func tokenIsRequiredWhenConfigured() throws {
        try withSimulator(SimulatorOptions(requireToken: "sk-lm-abcdefgh:abcdefghijklmnopqrst")) { sim in
            let missing = try request(sim, "GET", "/api/v1/models")
            #expect(missing.status == 401)
            #expect(missing.error["code"] as? String == "invalid_api_key")
            #expect(missing.error["type"] as? String == "invalid_request")
            #expect(missing.errorMessage?.contains("An LM Studio API token is required") == true)
            let wrong = try request(sim, "GET", "/api/v1/models", headers: ["Authorization": "Bearer sk-lm-wrong"])
            #expect(wrong.status == 401)
            #expect(wrong.error["code"] as? String == "invalid_api_key")
            #expect(wrong.errorMessage != missing.errorMessage)
            let right = try request(
                sim, "GET", "/api/v1/models", headers: ["Authorization": "Bearer sk-lm-abcdefgh:abcdefghijklmnopqrst"])
            #expect(right.status == 200)
            #expect(right.json["models"] != nil)
        }
    }

    @Test func downloadJobAdvancesToCompletedAndTheModelAppears() throws {
        try withSimulator { sim in
            let known = try post(sim, "/api/v1/models/download", ["model": "acme/tiny-1b"])
            #expect(known.json["status"] as? String == "already_downloaded")
            #expect(known.json["job_id"] == nil)

            let started = try post(sim, "/api/v1/models/download", ["model": "acme/new-3b"])
            #expect(started.json["status"] as? String == "downloading")
            let job = try #require(started.json["job_id"] as? String)
            #expect(started.json["total_size_bytes"] is Int)
            var statuses: [String] = []
            var downloaded: [Int] = []
            for _ in 0..<5 {
                let poll = try request(sim, "GET", "/api/v1/models/download/status/\(job)").json
                statuses.append(poll["status"] as? String ?? "?")
                downloaded.append(poll["downloaded_bytes"] as? Int ?? -1)
            }
            #expect(statuses == ["downloading", "downloading", "downloading", "completed", "completed"])
            #expect(downloaded == downloaded.sorted())
            let keys = (try request(sim, "GET", "/api/v1/models").json["models"] as? [[String: Any]] ?? []).compactMap {
                $0["key"] as? String
            }
            #expect(keys.contains("acme/new-3b"))
            let again = try post(sim, "/api/v1/models/download", ["model": "acme/new-3b"])
            #expect(again.json["status"] as? String == "already_downloaded")
        }
    }

    @Test func downloadOfAFailingModelEndsFailed() throws {
        try withSimulator { sim in
            let job = try #require(
                try post(sim, "/api/v1/models/download", ["model": "acme/fail-2b"]).json["job_id"] as? String)
            var statuses: [String] = []
            for _ in 0..<3 {
                statuses.append(
                    try request(sim, "GET", "/api/v1/models/download/status/\(job)").json["status"] as? String ?? "?")
            }
            #expect(statuses == ["downloading", "failed", "failed"])
            let unknown = try request(sim, "GET", "/api/v1/models/download/status/job_nope")
            #expect(unknown.status == 404)
            #expect(unknown.error["type"] as? String == "job_not_found")
        }
    }

    @Test func requestsAreRecordedAndServedUnderSim() throws {
        try withSimulator { sim in
            _ = try post(sim, "/api/v1/models/unload", ["instance_id": "acme/tiny-1b"], headers: ["X-Extra": "yes"])
            let recorded = sim.recordedRequests()
            #expect(recorded.count == 1)
            #expect(recorded.first?.method == "POST")
            #expect(recorded.first?.path == "/api/v1/models/unload")
            #expect(recorded.first?.headers["x-extra"] == "yes")
            #expect(recorded.first?.bodyKeys == ["instance_id"])
            #expect(recorded.first?.field("instance_id") == "acme/tiny-1b")

            let served = try request(sim, "GET", "/__sim/requests")
            let list = (try JSONSerialization.jsonObject(with: Data(served.body))) as? [[String: Any]] ?? []
            #expect(list.count == 1)
            #expect((list.first?["body"] as? [String: Any])?["instance_id"] as? String == "acme/tiny-1b")

            #expect(try request(sim, "POST", "/__sim/reset").status == 200)
            #expect(sim.recordedRequests().isEmpty)
            #expect(loadedIDs(sim, "acme/tiny-1b") == ["acme/tiny-1b"])
        }
    }

    @Test func headerStatusFaultAppliesToAnyEndpoint() throws {
        try withSimulator { sim in
            let response = try request(sim, "GET", "/api/v1/models", headers: ["X-Sim-Faults": "status=503"])
            #expect(response.status == 503)
            #expect(response.errorMessage != nil)
        }
    }

    @Test func stopIsIdempotentAndRefusesLaterConnections() throws {
        let sim = Simulator()
        try sim.start()
        sim.stop()
        sim.stop()
        #expect(throws: LoopbackError.self) { try request(sim, "GET", "/lmstudio-greeting") }
    }
}

/// The ids of the loaded instances of `key`, as `/api/v1/models` lists them.
func loadedIDs(_ sim: Simulator, _ key: String) -> [String] {
    let models = (try? request(sim, "GET", "/api/v1/models").json["models"] as? [[String: Any]]) ?? []
    let model = models.first { $0["key"] as? String == key }
    return (model?["loaded_instances"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
}
