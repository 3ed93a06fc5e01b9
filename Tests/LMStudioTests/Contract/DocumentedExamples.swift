/// The examples of LM Studio's REST API documentation (the `lmstudio-ai/docs` repository), field for field.
///
/// Each fixture names the page it follows. Field names, types, nesting and order are the documentation's; long
/// free-text values (prose the model wrote) are shortened, since no client behaviour depends on them.
enum DocumentedExamples {
    // MARK: 1_developer/2_rest/chat.md

    /// `chat.md`, "Request with MCP".
    static let chatRequestWithMCP = #"""
        {
          "model": "ibm/granite-4-micro",
          "input": "Tell me the top trending model on hugging face and navigate to https://lmstudio.ai",
          "integrations": [
            {"type": "ephemeral_mcp", "server_label": "huggingface", "server_url": "https://huggingface.co/mcp", "allowed_tools": ["model_search"]},
            {"type": "plugin", "id": "mcp/playwright", "allowed_tools": ["browser_navigate"]}
          ],
          "context_length": 8000,
          "temperature": 0
        }
        """#

    /// `chat.md`, "Request with Images" (a 10×10 red PNG).
    static let chatRequestWithImages = #"""
        {
          "model": "qwen/qwen3-vl-4b",
          "input": [
            {"type": "text", "content": "Describe this image in two sentences"},
            {"type": "image", "data_url": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAoAAAAKCAYAAACNMs+9AAAAFUlEQVR42mP8z8BQz0AEYBxVSF+FABJADveWkH6oAAAAAElFTkSuQmCC"}
          ],
          "context_length": 2048,
          "temperature": 0
        }
        """#

    /// `chat.md`, the reply to "Request with MCP".
    static let chatReplyWithMCP = #"""
        {
          "model_instance_id": "ibm/granite-4-micro",
          "output": [
            {"type": "tool_call", "tool": "model_search", "arguments": {"sort": "trendingScore", "query": "", "limit": 1}, "output": "...",
             "provider_info": {"server_label": "huggingface", "type": "ephemeral_mcp"}},
            {"type": "message", "content": "..."},
            {"type": "tool_call", "tool": "browser_navigate", "arguments": {"url": "https://lmstudio.ai"}, "output": "...",
             "provider_info": {"plugin_id": "mcp/playwright", "type": "plugin"}},
            {"type": "message", "content": "**Top Trending Model on Hugging Face** ..."}
          ],
          "stats": {
            "input_tokens": 646,
            "total_output_tokens": 586,
            "reasoning_output_tokens": 0,
            "tokens_per_second": 29.753900615398926,
            "time_to_first_token_seconds": 1.088,
            "model_load_time_seconds": 2.656
          },
          "response_id": "resp_4ef013eba0def1ed23f19dde72b67974c579113f544086de"
        }
        """#

    /// `chat.md`, the reply to "Request with Images".
    static let chatReplyWithImages = #"""
        {
          "model_instance_id": "qwen/qwen3-vl-4b",
          "output": [{"type": "message", "content": "This image is a solid, vibrant red square ..."}],
          "stats": {
            "input_tokens": 17,
            "total_output_tokens": 50,
            "reasoning_output_tokens": 0,
            "tokens_per_second": 51.03762685242662,
            "time_to_first_token_seconds": 0.814
          },
          "response_id": "resp_0182bd7c479d7451f9a35471f9c26b34de87a7255856b9a4"
        }
        """#

    /// `chat.md`, the fields of an `invalid_tool_call` output item (the page has no example of one).
    static let invalidToolCallItems = #"""
        [
          {"type": "invalid_tool_call", "reason": "Cannot find tool with name open_browser.",
           "metadata": {"type": "invalid_name", "tool_name": "open_browser"}},
          {"type": "invalid_tool_call", "reason": "Invalid arguments.",
           "metadata": {"type": "invalid_arguments", "tool_name": "model_search", "arguments": {"limit": "one"},
                        "provider_info": {"type": "ephemeral_mcp", "server_label": "huggingface"}}}
        ]
        """#

    // MARK: 1_developer/2_rest/stateful-chats.mdx

    /// `stateful-chats.mdx`, "Start a new conversation".
    static let statefulStart = #"{"model": "ibm/granite-4-micro", "input": "My favorite color is blue."}"#

    /// `stateful-chats.mdx`, its reply (the page leaves out `stats`).
    static let statefulReply = #"""
        {
          "model_instance_id": "ibm/granite-4-micro",
          "output": [{"type": "message", "content": "That's great! Blue is a beautiful color..."}],
          "response_id": "resp_abc123xyz..."
        }
        """#

    /// `stateful-chats.mdx`, "Continue the conversation".
    static let statefulContinue = #"""
        {"model": "ibm/granite-4-micro", "input": "What color did I just mention?", "previous_response_id": "resp_abc123xyz..."}
        """#

    /// `stateful-chats.mdx`, "Stateless chat".
    static let statelessChat = #"{"model": "ibm/granite-4-micro", "input": "Tell me a joke.", "store": false}"#

    // MARK: 1_developer/0_core/mcp.mdx

    /// `mcp.mdx`, "MCP servers from mcp.json": a plugin named by its id alone.
    static let mcpJSONRequest = #"""
        {"model": "ibm/granite-4-micro", "input": "Open lmstudio.ai", "integrations": ["mcp/playwright"], "context_length": 8000, "temperature": 0}
        """#

    /// `mcp.mdx`, "Custom headers for ephemeral servers".
    static let mcpHeadersRequest = #"""
        {
          "model": "ibm/granite-4-micro",
          "input": "Give me details about my SUPER-SECRET-PRIVATE Hugging face model",
          "integrations": [
            {"type": "ephemeral_mcp", "server_label": "huggingface", "server_url": "https://huggingface.co/mcp",
             "allowed_tools": ["model_search"], "headers": {"Authorization": "Bearer <YOUR_HF_TOKEN>"}}
          ],
          "context_length": 8000
        }
        """#

    /// `mcp.mdx`, the reply to the ephemeral-server request: reasoning and messages interleaved with a tool call.
    static let mcpEphemeralReply = #"""
        {
          "model_instance_id": "ibm/granite-4-micro",
          "output": [
            {"type": "reasoning", "content": "..."},
            {"type": "message", "content": "..."},
            {"type": "tool_call", "tool": "model_search", "arguments": {"sort": "trendingScore", "limit": 1}, "output": "...",
             "provider_info": {"server_label": "huggingface", "type": "ephemeral_mcp"}},
            {"type": "reasoning", "content": "\n"},
            {"type": "message", "content": "The top trending model is ..."}
          ],
          "stats": {
            "input_tokens": 419,
            "total_output_tokens": 362,
            "reasoning_output_tokens": 195,
            "tokens_per_second": 27.620159487314744,
            "time_to_first_token_seconds": 1.437
          },
          "response_id": "resp_7c1a08e3d6e279efcfecb02df9de7cbd316e93422d0bb5cb"
        }
        """#

    // MARK: 1_developer/2_rest/streaming-events.md

    /// `streaming-events.md`: every event's "Example Event Data", in the order the page lists the event types.
    static let streamEvents: [(name: String, data: String)] = [
        ("chat.start", #"{"type": "chat.start", "model_instance_id": "openai/gpt-oss-20b"}"#),
        ("model_load.start", #"{"type": "model_load.start", "model_instance_id": "openai/gpt-oss-20b"}"#),
        (
            "model_load.progress",
            #"{"type": "model_load.progress", "model_instance_id": "openai/gpt-oss-20b", "progress": 0.65}"#
        ),
        (
            "model_load.end",
            #"{"type": "model_load.end", "model_instance_id": "openai/gpt-oss-20b", "load_time_seconds": 12.34}"#
        ),
        ("prompt_processing.start", #"{"type": "prompt_processing.start"}"#),
        ("prompt_processing.progress", #"{"type": "prompt_processing.progress", "progress": 0.5}"#),
        ("prompt_processing.end", #"{"type": "prompt_processing.end"}"#),
        ("reasoning.start", #"{"type": "reasoning.start"}"#),
        ("reasoning.delta", #"{"type": "reasoning.delta", "content": "Need to"}"#),
        ("reasoning.end", #"{"type": "reasoning.end"}"#),
        (
            "tool_call.start",
            #"{"type": "tool_call.start", "tool": "model_search", "provider_info": {"type": "ephemeral_mcp", "server_label": "huggingface"}}"#
        ),
        (
            "tool_call.arguments",
            #"""
            {"type": "tool_call.arguments", "tool": "model_search", "arguments": {"sort": "trendingScore", "limit": 1},
             "provider_info": {"type": "ephemeral_mcp", "server_label": "huggingface"}}
            """#
        ),
        (
            "tool_call.success",
            #"""
            {"type": "tool_call.success", "tool": "model_search", "arguments": {"sort": "trendingScore", "limit": 1},
             "output": "[{\"type\":\"text\",\"text\":\"Showing first 1 models...\"}]",
             "provider_info": {"type": "ephemeral_mcp", "server_label": "huggingface"}}
            """#
        ),
        (
            "tool_call.failure",
            #"""
            {"type": "tool_call.failure", "reason": "Cannot find tool with name open_browser.", "metadata": {"type": "invalid_name", "tool_name": "open_browser"}}
            """#
        ),
        ("message.start", #"{"type": "message.start"}"#),
        ("message.delta", #"{"type": "message.delta", "content": "The current"}"#),
        ("message.end", #"{"type": "message.end"}"#),
        (
            "error",
            #"""
            {"type": "error", "error": {"type": "invalid_request", "message": "\"model\" is required", "code": "missing_required_parameter", "param": "model"}}
            """#
        ),
        (
            "chat.end",
            #"""
            {"type": "chat.end", "result": {
              "model_instance_id": "openai/gpt-oss-20b",
              "output": [
                {"type": "reasoning", "content": "Need to call function."},
                {"type": "tool_call", "tool": "model_search", "arguments": {"sort": "trendingScore", "limit": 1},
                 "output": "[{\"type\":\"text\",\"text\":\"Showing first 1 models...\"}]",
                 "provider_info": {"type": "ephemeral_mcp", "server_label": "huggingface"}},
                {"type": "message", "content": "The current top‑trending model is..."}
              ],
              "stats": {"input_tokens": 329, "total_output_tokens": 268, "reasoning_output_tokens": 5, "tokens_per_second": 43.73,
                        "time_to_first_token_seconds": 0.781},
              "response_id": "resp_02b2017dbc06c12bfc353a2ed6c2b802f8cc682884bb5716"
            }}
            """#
        )
    ]

    /// The documented events as one SSE body in the documented raw format (`event:` and `data:` lines).
    static var streamBody: String {
        streamEvents.map { "event: \($0.name)\ndata: \($0.data.split(separator: "\n").joined(separator: " "))\n\n" }
            .joined()
    }

    // MARK: 1_developer/2_rest/list.md

    /// `list.md`, the response (a multi-variant LLM that is loaded, an LLM that is not, an embedding model).
    static let modelList = #"""
        {
          "models": [
            {
              "type": "llm", "publisher": "google", "key": "google/gemma-4-26b-a4b", "display_name": "Gemma 4 26B A4B",
              "architecture": "gemma4", "quantization": {"name": "Q4_K_M", "bits_per_weight": 4}, "size_bytes": 17990911801,
              "params_string": "26B-A4B",
              "loaded_instances": [
                {"id": "google/gemma-4-26b-a4b", "config": {"context_length": 4096, "eval_batch_size": 512, "parallel": 4,
                                                            "flash_attention": true, "num_experts": 8, "offload_kv_cache_to_gpu": true}}
              ],
              "max_context_length": 262144, "format": "gguf",
              "capabilities": {"vision": true, "trained_for_tool_use": true, "reasoning": {"allowed_options": ["off", "on"], "default": "on"}},
              "description": null,
              "variants": ["google/gemma-4-26b-a4b@q4_k_m"],
              "selected_variant": "google/gemma-4-26b-a4b@q4_k_m"
            },
            {
              "type": "llm", "publisher": "deepseek", "key": "deepseek-r1", "display_name": "DeepSeek R1", "architecture": "deepseek",
              "quantization": {"name": "Q4_K_M", "bits_per_weight": 4}, "size_bytes": 40492610355, "params_string": "671B",
              "loaded_instances": [], "max_context_length": 131072, "format": "gguf",
              "capabilities": {"vision": false, "trained_for_tool_use": true, "reasoning": {"allowed_options": ["on"], "default": "on"}},
              "description": null
            },
            {
              "type": "embedding", "publisher": "gaianet", "key": "text-embedding-nomic-embed-text-v1.5-embedding",
              "display_name": "Nomic Embed Text v1.5", "quantization": {"name": "F16", "bits_per_weight": 16}, "size_bytes": 274290560,
              "params_string": null, "loaded_instances": [], "max_context_length": 2048, "format": "gguf"
            }
          ]
        }
        """#

    /// `list.md`: every field a model may have (the reference), for checking what a server lists.
    static let modelFields: Set<String> = [
        "type", "publisher", "key", "display_name", "architecture", "quantization", "size_bytes", "params_string",
        "loaded_instances", "max_context_length", "format", "capabilities", "description", "variants",
        "selected_variant"
    ]

    /// `list.md`: every field of a loaded instance's `config`; all but `context_length` are absent for embedding models.
    static let instanceConfigFields: Set<String> = [
        "context_length", "eval_batch_size", "parallel", "flash_attention", "num_experts", "offload_kv_cache_to_gpu"
    ]

    // MARK: 1_developer/2_rest/load.md, unload.md

    /// `load.md`, "Example Request".
    static let loadRequest =
        #"{"model": "openai/gpt-oss-20b", "context_length": 16384, "flash_attention": true, "echo_load_config": true}"#

    /// `load.md`, the response (with `load_config`, as `echo_load_config` asked).
    static let loadReply = #"""
        {
          "type": "llm", "instance_id": "openai/gpt-oss-20b", "load_time_seconds": 9.099, "status": "loaded",
          "load_config": {"context_length": 16384, "eval_batch_size": 512, "flash_attention": true, "offload_kv_cache_to_gpu": true, "num_experts": 4}
        }
        """#

    /// `load.md`: the response without `echo_load_config`, which leaves `load_config` out.
    static let loadReplyWithoutConfig =
        #"{"type": "llm", "instance_id": "openai/gpt-oss-20b", "load_time_seconds": 9.099, "status": "loaded"}"#

    /// `unload.md`, "Example Request".
    static let unloadRequest = #"{"instance_id": "openai/gpt-oss-20b"}"#

    /// `unload.md`, the response.
    static let unloadReply = #"{"instance_id": "openai/gpt-oss-20b"}"#

    // MARK: 1_developer/2_rest/download.md, download-status.md

    /// `download.md`, "Example Request".
    static let downloadRequest = #"{"model": "ibm/granite-4-micro"}"#

    /// `download.md`, the response.
    static let downloadReply =
        #"{"job_id": "job_493c7c9ded", "status": "downloading", "total_size_bytes": 2279145003, "started_at": "2025-10-03T15:33:23.496Z"}"#

    /// `download.md`: every field of the start reply.
    static let downloadReplyFields: Set<String> = ["job_id", "status", "completed_at", "total_size_bytes", "started_at"]

    /// `download-status.md`, the response.
    static let downloadStatusReply = #"""
        {"job_id": "job_493c7c9ded", "status": "completed", "total_size_bytes": 2279145003, "downloaded_bytes": 2279145003,
         "started_at": "2025-10-03T15:33:23.496Z", "completed_at": "2025-10-03T15:43:12.102Z"}
        """#

    /// `download-status.md`: every field of a status.
    static let downloadStatusFields: Set<String> = [
        "job_id", "status", "bytes_per_second", "estimated_completion", "completed_at", "total_size_bytes",
        "downloaded_bytes", "started_at"
    ]
}
