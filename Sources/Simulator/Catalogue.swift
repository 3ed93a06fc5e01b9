/// The downloaded models the simulator starts with, as literal JSON that follows `lmstudio-api.md` and LM Studio's
/// `1_developer/2_rest/list.md` (the embedding model as in its example: no `architecture`, `capabilities` or
/// `description`, and `params_string` null).
///
/// `loaded_instances` is filled in when `/api/v1/models` is served; the odd extra fields
/// (`license`, `sim_release`, `compatibility`) are there because clients must ignore unknown keys.
enum Catalogue {
    /// The six models of the catalogue, in listing order.
    static let fixtures: [String] = [
        #"""
        {
          "type": "llm",
          "publisher": "acme",
          "key": "acme/tiny-1b",
          "display_name": "Acme Tiny 1B",
          "architecture": "llama",
          "quantization": {"name": "Q4_K_M", "bits_per_weight": 4},
          "size_bytes": 812000000,
          "params_string": "1B",
          "max_context_length": 32768,
          "format": "gguf",
          "capabilities": {"vision": false, "trained_for_tool_use": false},
          "description": "A very small general model for quick replies.",
          "license": "apache-2.0"
        }
        """#,
        #"""
        {
          "type": "llm",
          "publisher": "acme",
          "key": "acme/thinker-8b",
          "display_name": "Acme Thinker 8B",
          "architecture": "qwen3",
          "quantization": {"name": "Q6_K", "bits_per_weight": 6},
          "size_bytes": 4920000000,
          "params_string": "8B",
          "max_context_length": 131072,
          "format": "gguf",
          "capabilities": {
            "vision": false,
            "trained_for_tool_use": false,
            "reasoning": {"allowed_options": ["off", "low", "medium", "high"], "default": "medium"}
          },
          "description": "A reasoning model that thinks before it answers."
        }
        """#,
        #"""
        {
          "type": "llm",
          "publisher": "acme",
          "key": "acme/vision-7b",
          "display_name": "Acme Vision 7B",
          "architecture": "qwen2_vl",
          "quantization": {"name": "4bit", "bits_per_weight": null},
          "size_bytes": 4300000000,
          "params_string": "7B",
          "max_context_length": 65536,
          "format": "mlx",
          "capabilities": {"vision": true, "trained_for_tool_use": false},
          "description": "Understands images as well as text.",
          "sim_release": {"year": 2026, "channel": "beta"}
        }
        """#,
        #"""
        {
          "type": "llm",
          "publisher": "acme",
          "key": "acme/toolsmith-12b",
          "display_name": "Acme Toolsmith 12B",
          "architecture": "mistral",
          "quantization": {"name": "Q4_K_M", "bits_per_weight": 4},
          "size_bytes": 7100000000,
          "params_string": "12B",
          "max_context_length": 65536,
          "format": "gguf",
          "capabilities": {"vision": false, "trained_for_tool_use": true},
          "description": "Trained to call tools."
        }
        """#,
        #"""
        {
          "type": "llm",
          "publisher": "acme",
          "key": "acme/multi-26b",
          "display_name": "Acme Multi 26B A4B",
          "architecture": "gemma3n",
          "quantization": {"name": "Q8_0", "bits_per_weight": 8},
          "size_bytes": 15600000000,
          "params_string": "26B-A4B",
          "max_context_length": 262144,
          "format": "gguf",
          "capabilities": {
            "vision": false,
            "trained_for_tool_use": true,
            "reasoning": {"allowed_options": ["on", "off"], "default": "on"}
          },
          "description": "A mixture-of-experts model with several variants.",
          "variants": ["acme/multi-26b@q4_k_m", "acme/multi-26b@q8_0"],
          "selected_variant": "acme/multi-26b@q8_0",
          "compatibility": ["linux", "mac"]
        }
        """#,
        #"""
        {
          "type": "embedding",
          "publisher": "acme",
          "key": "acme/embed-small",
          "display_name": "Acme Embed Small",
          "quantization": {"name": "F16", "bits_per_weight": 16},
          "size_bytes": 137000000,
          "params_string": null,
          "max_context_length": 2048,
          "format": "gguf"
        }
        """#
    ]

    /// The fixture for a model that a download job just completed.
    static func downloaded(key: String, sizeBytes: Int) -> String {
        let publisher = key.split(separator: "/").first.map(String.init) ?? "unknown"
        let name = key.split(separator: "/").last.map(String.init) ?? key
        return JSON.encode(
            [
                "type": "llm",
                "publisher": publisher,
                "key": key,
                "display_name": name,
                "architecture": "llama",
                "quantization": ["name": "Q4_K_M", "bits_per_weight": 4],
                "size_bytes": sizeBytes,
                "params_string": "3B",
                "max_context_length": 32768,
                "format": "gguf",
                "capabilities": ["vision": false, "trained_for_tool_use": false],
                "description": "Downloaded through the simulator."
            ] as [String: Any])
    }

    /// Models as 0.4.x servers were seen to list them beyond `list.md` (`SimulatorOptions.observedShapes`): a key
    /// without a `publisher/` prefix and no `capabilities.reasoning` (lmstudio-bug-tracker#1659), and a reasoning
    /// model whose options go beyond the documented five (`xhigh`).
    static let observedFixtures: [String] = [
        #"""
        {
          "type": "llm",
          "publisher": "lmstudio-community",
          "key": "qwen3-4b-2507",
          "display_name": "Qwen3 4B 2507",
          "architecture": "qwen3",
          "quantization": {"name": "Q4_K_M", "bits_per_weight": 4},
          "size_bytes": 2500000000,
          "params_string": "4B",
          "max_context_length": 262144,
          "format": "gguf",
          "capabilities": {"vision": false, "trained_for_tool_use": true}
        }
        """#,
        #"""
        {
          "type": "llm",
          "publisher": "acme",
          "key": "acme/deep-20b",
          "display_name": "Acme Deep 20B",
          "architecture": "gpt-oss",
          "quantization": {"name": "MXFP4", "bits_per_weight": 4},
          "size_bytes": 12100000000,
          "params_string": "20B",
          "max_context_length": 131072,
          "format": "gguf",
          "capabilities": {
            "vision": false,
            "trained_for_tool_use": true,
            "reasoning": {"allowed_options": ["low", "medium", "high", "xhigh"], "default": "medium"}
          }
        }
        """#
    ]

    /// `loaded_instances[].config` keys 0.4.x servers were seen to add to the documented ones.
    static var observedConfigKeys: [String: Any] {
        [
            "physical_batch_size": 512, "context_checkpoints": 3,
            "reasoning_budget_message": "Thinking budget reached.",
            "speculative_draft_max_tokens": 16
        ]
    }
}
