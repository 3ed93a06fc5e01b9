import Foundation
import Glibc

/// A complete non-streamed answer.
struct Reply {
    /// The HTTP status.
    var status: Int
    /// The JSON body.
    var body: String

    /// HTTP 200 with `json`.
    static func ok(_ json: [String: Any]) -> Reply {
        Reply(status: 200, body: JSON.encode(json))
    }

    /// An error object body with `status`.
    static func error(_ status: Int, type: String, message: String, code: String? = nil, param: String? = nil) -> Reply
    {
        Reply(status: status, body: JSON.error(type: type, message: message, code: code, param: param))
    }

    /// What LM Studio answers for a path or method it does not serve: HTTP 200 with a string error.
    ///
    /// Observed, not documented: the docs define no answer for unknown paths; this is what servers before 0.4
    /// answered for every `/api/v1/*` path, and what 0.4 answers for an unknown one.
    static func unexpected(_ method: String, _ path: String) -> Reply {
        ok(["error": "Unexpected endpoint or method. (\(method) \(path))"])
    }
}

extension Simulator {
    /// Records, authorises and answers one request.
    func route(_ request: HTTPRequest, fd: Int32) {
        var writer = ResponseWriter(fd: fd, faults: Faults())
        if request.path.hasPrefix("/__sim/") {
            let reply = simControl(request)
            writer.respond(status: reply.status, body: reply.body)
            return
        }
        state.withLock {
            $0.requests.append(
                RecordedRequest(
                    method: request.method, path: request.path, headers: request.headers, body: request.bodyText))
        }
        if let denied = authorize(request) {
            writer.respond(status: denied.status, body: denied.body)
            return
        }
        var headerFaults = Faults()
        do {
            try headerFaults.apply(request.headers["x-sim-faults"] ?? "")
        } catch {
            writer.respond(status: 400, body: JSON.error(type: "invalid_request", message: error.description))
            return
        }
        if headerFaults.gzip { writer.gzip = Gzip() }
        if let status = headerFaults.status {
            writer.respond(
                status: status,
                body: JSON.error(type: "internal_error", message: "Simulated failure (status=\(status))"))
            return
        }
        let reply: Reply
        switch (request.method, request.path) {
        case ("GET", "/lmstudio-greeting"):
            // Observed, not documented: LM Studio answers this path; the docs do not mention it.
            reply = .ok(["lmstudio": true, "version": options.legacy ? "0.3.31" : "0.4.0", "simulator": true])
        case _ where options.legacy && request.path.hasPrefix("/api/v1/"):
            reply = .unexpected(request.method, request.path)
        case ("GET", "/api/v1/models"):
            reply = listModels()
        case ("POST", "/api/v1/models/load"):
            if headerFaults.slowLoad, !stopSignal.pause(slowLoadStep * 20) { return }
            reply = load(request)
        case ("POST", "/api/v1/models/unload"):
            reply = unload(request)
        case ("POST", "/api/v1/models/download"):
            reply = download(request)
        case ("GET", _) where request.path.hasPrefix("/api/v1/models/download/status/"):
            reply = downloadStatus(String(request.path.dropFirst("/api/v1/models/download/status/".count)))
        case ("POST", "/api/v1/chat"):
            chat(request, writer: &writer)
            return
        default:
            reply = .unexpected(request.method, request.path)
        }
        writer.respond(status: reply.status, body: reply.body)
    }

    /// Seconds between JIT load progress events under `slow-load`.
    var slowLoadStep: Double {
        max(options.tokenDelay, 0.05)
    }

    /// Checks the bearer token when "Require Authentication" is on (`authentication.mdx`).
    ///
    /// Observed, not documented: the 401 status and body. The docs say only that requests need a valid token.
    private func authorize(_ request: HTTPRequest) -> Reply? {
        guard let token = options.requireToken else { return nil }
        guard let header = request.headers["authorization"] else {
            return .error(
                401, type: "invalid_request",
                message:
                    "An LM Studio API token is required to make requests to this server. Pass it as 'Authorization: Bearer <token>'.",
                code: "invalid_api_key")
        }
        if let limited = options.listOnlyToken, header == "Bearer \(limited)" {
            // Documented: tokens carry permissions. Not documented: the 403 and its body, a guess.
            guard request.method == "GET", request.path == "/api/v1/models" || request.path == "/lmstudio-greeting"
            else {
                return .error(
                    403, type: "invalid_request",
                    message: "This API token does not have permission to access \(request.method) \(request.path).",
                    code: "insufficient_permissions")
            }
            return nil
        }
        guard header == "Bearer \(token)" else {
            return .error(
                401, type: "invalid_request",
                message: "An LM Studio API token is required, but the provided token is invalid.",
                code: "invalid_api_key")
        }
        return nil
    }

    private func simControl(_ request: HTTPRequest) -> Reply {
        switch (request.method, request.path) {
        case ("GET", "/__sim/requests"):
            let list: [[String: Any]] = recordedRequests().map { recorded in
                [
                    "method": recorded.method,
                    "path": recorded.path,
                    "headers": recorded.headers,
                    "body": recorded.body.isEmpty ? NSNull() : (JSON.parse(recorded.body) ?? recorded.body)
                ]
            }
            return Reply(status: 200, body: JSON.encode(list))
        case ("POST", "/__sim/reset"):
            reset()
            return .ok(["reset": true])
        default:
            return .unexpected(request.method, request.path)
        }
    }

    /// Parses a JSON object body and refuses keys outside `allowed`, as LM Studio's strict schemas do.
    ///
    /// Observed, not documented: the docs list the fields but do not say that others are refused, nor with what.
    func strictBody(_ request: HTTPRequest, allowed: Set<String>) -> Result<[String: Any], ReplyError> {
        guard let json = JSON.object(request.bodyText) else {
            return .failure(
                ReplyError(.error(400, type: "invalid_request", message: "Request body must be a JSON object")))
        }
        let unknown = json.keys.filter { !allowed.contains($0) }.sorted()
        guard unknown.isEmpty else {
            let list = unknown.map { "'\($0)'" }.joined(separator: ", ")
            return .failure(
                ReplyError(
                    .error(
                        400, type: "invalid_request", message: "Unrecognized key(s) in object: \(list)",
                        code: "unrecognized_keys")))
        }
        return .success(json)
    }

    /// `GET /api/v1/models` (`list.md`); a server with `earlyModelList` leaves out the fields documented in April 2026.
    private func listModels() -> Reply {
        let early = options.earlyModelList
        let models: [[String: Any]] = state.withLock { state in
            state.models.map { model in
                var json = JSON.object(model.fixture) ?? [:]
                json["loaded_instances"] = state.instances.filter { $0.key == model.key }.map {
                    instance -> [String: Any] in
                    var config = instance.config(listsParallel: !early)
                    if options.observedShapes { config.merge(Catalogue.observedConfigKeys) { current, _ in current } }
                    return ["id": instance.id, "config": config]
                }
                if early {
                    json["variants"] = nil
                    json["selected_variant"] = nil
                    if var capabilities = json["capabilities"] as? [String: Any] {
                        capabilities["reasoning"] = nil
                        json["capabilities"] = capabilities
                    }
                }
                return json
            }
        }
        return .ok(["models": models])
    }

    private func load(_ request: HTTPRequest) -> Reply {
        let allowed: Set<String> = [
            "model", "context_length", "eval_batch_size", "flash_attention", "num_experts", "offload_kv_cache_to_gpu",
            "echo_load_config"
        ]
        let json: [String: Any]
        switch strictBody(request, allowed: allowed) {
        case .success(let body): json = body
        case .failure(let error): return error.reply
        }
        guard let key = json["model"] as? String else {
            return .error(
                400, type: "invalid_request", message: "Required: 'model' must be a string", code: "invalid_type",
                param: "model")
        }
        return state.withLock { state in
            guard let model = state.model(key) else {
                return .error(
                    404, type: "model_not_found", message: "Model '\(key)' not found", code: "model_not_found",
                    param: "model")
            }
            let context = json["context_length"] as? Int ?? min(4096, model.maxContextLength)
            guard context >= 1, context <= model.maxContextLength else {
                return .error(
                    400, type: "invalid_request",
                    message: "context_length \(context) is outside 1…\(model.maxContextLength) for '\(key)'",
                    code: "invalid_value", param: "context_length")
            }
            if options.loadForgetsResponses { state.chains = [:] }
            var instance = state.load(key: key, contextLength: context)
            // The llama.cpp options "only have an effect" on that engine (`load.md`): others ignore them.
            if instance.engine == .llamaCpp {
                for name in ["eval_batch_size", "num_experts"] {
                    if let value = json[name] as? Int { instance.extra[name] = value }
                }
                for name in ["flash_attention", "offload_kv_cache_to_gpu"] {
                    if let value = json[name] as? Bool { instance.flags[name] = value }
                }
            }
            state.instances[state.instances.count - 1] = instance
            var reply: [String: Any] = [
                "type": model.type, "instance_id": instance.id, "load_time_seconds": 1.25, "status": "loaded"
            ]
            if json["echo_load_config"] as? Bool == true { reply["load_config"] = instance.loadConfig }
            return .ok(reply)
        }
    }

    private func unload(_ request: HTTPRequest) -> Reply {
        let json: [String: Any]
        switch strictBody(request, allowed: ["instance_id"]) {
        case .success(let body): json = body
        case .failure(let error): return error.reply
        }
        guard let id = json["instance_id"] as? String else {
            return .error(
                400, type: "invalid_request", message: "Required: 'instance_id' must be a string", code: "invalid_type",
                param: "instance_id")
        }
        return state.withLock { state in
            guard let index = state.instances.firstIndex(where: { $0.id == id }) else {
                return .error(
                    404, type: "model_not_found", message: "No loaded instance with id '\(id)'",
                    code: "model_not_found", param: "instance_id")
            }
            state.instances.remove(at: index)
            return .ok(["instance_id": id])
        }
    }

    private func download(_ request: HTTPRequest) -> Reply {
        let json: [String: Any]
        switch strictBody(request, allowed: ["model", "quantization"]) {
        case .success(let body): json = body
        case .failure(let error): return error.reply
        }
        guard let model = json["model"] as? String, !model.isEmpty else {
            return .error(
                400, type: "invalid_request", message: "Required: 'model' must be a string", code: "invalid_type",
                param: "model")
        }
        let key = Self.modelKey(fromDownload: model)
        return state.withLock { state in
            if state.model(key) != nil {
                return .ok(["status": "already_downloaded"])
            }
            let id = "job_\(String(format: "%08x", state.nextJob * 0x9E37_79B1 & 0xFFFF_FFFF))"
            state.nextJob += 1
            let job = ServerState.Download(id: id, model: key, totalBytes: 2_000_000_000 + key.utf8.count * 1_000_000)
            state.downloads[id] = job
            // The start reply has the fields of `download.md` only; speed, progress and estimate are status fields.
            return .ok([
                "job_id": job.id, "status": job.status, "total_size_bytes": job.totalBytes, "started_at": Self.startedAt
            ])
        }
    }

    private func downloadStatus(_ id: String) -> Reply {
        state.withLock { state in
            guard var job = state.downloads[id] else {
                return .error(
                    404, type: "job_not_found", message: "Download job '\(id)' not found", code: "job_not_found")
            }
            if job.status == "downloading" {
                job.polls += 1
                if job.model.contains("fail"), job.polls >= 2 {
                    job.status = "failed"
                } else if job.polls >= 4 {
                    job.status = "completed"
                    job.completedAt = "2026-01-01T00:00:\(String(format: "%02d", job.polls))Z"
                    if state.model(job.model) == nil {
                        state.models.append(
                            ServerState.Model(fixture: Catalogue.downloaded(key: job.model, sizeBytes: job.totalBytes)))
                    }
                }
                state.downloads[id] = job
            }
            return .ok(Self.describe(job))
        }
    }

    /// When every simulated download started.
    private static let startedAt = "2026-01-01T00:00:00Z"

    /// A download job as `GET …/download/status/:job_id` answers it (`download-status.md`).
    private static func describe(_ job: ServerState.Download) -> [String: Any] {
        let downloaded = job.status == "completed" ? job.totalBytes : job.totalBytes * min(job.polls, 4) / 4
        var json: [String: Any] = [
            "job_id": job.id,
            "status": job.status,
            "total_size_bytes": job.totalBytes,
            "downloaded_bytes": downloaded,
            "started_at": startedAt
        ]
        if job.status == "downloading" {
            json["bytes_per_second"] = 50_000_000
            json["estimated_completion"] = "2026-01-01T00:01:00Z"
        }
        if let completed = job.completedAt { json["completed_at"] = completed }
        return json
    }

    /// The catalogue key a download request names: `owner/name` from a Hugging Face URL, else the id itself.
    private static func modelKey(fromDownload model: String) -> String {
        guard model.hasPrefix("http"), let url = URL(string: model) else { return model }
        let parts = url.path.split(separator: "/").prefix(2)
        return parts.joined(separator: "/").lowercased()
    }
}

/// A `Reply` carried as an error, so validation steps can return early.
struct ReplyError: Error {
    /// What to answer.
    var reply: Reply

    /// Wraps `reply`.
    init(_ reply: Reply) {
        self.reply = reply
    }
}
