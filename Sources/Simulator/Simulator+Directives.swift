extension Simulator {
    /// Human-readable reference of the fault and scenario directives, for `--help` and docs.
    public static let directiveHelp = """
        Directives shape a chat reply. Give them per run (--faults / SimulatorOptions.defaultFaults),
        per request in the X-Sim-Faults header, or inside the input text as [[sim:...]]
        (removed, with the whitespace after it, before the text is answered). Tokens are separated
        by commas and/or spaces; later ones win (run < header < text).

          drop-after=N   close the connection after N events (no chat.end); non-streaming: no reply
          error[=TYPE]   an `error` event (default internal_error), then chat.end; non-streaming: HTTP
                         404 (model_not_found, job_not_found), 400 (invalid_request) or 500
          mcp-error      error=mcp_connection_error
          plugin-error   error=plugin_connection_error
          integrations-off  a request with integrations gets HTTP 400 naming the parameter (the
                         server's MCP settings off; the wording is assumed, not documented)
          integration-keys  a request with integrations gets HTTP 400 unrecognized_keys for
                         integrations.0 (a field an older 0.4 server does not know; observed)
          overflow-empty a prompt longer than the context gets an empty answer with input_tokens at the
                         context length instead of an error (lmstudio-bug-tracker#2339)
          think-tags     reasoning inside <think>…</think> at the start of the answer, no reasoning events
          sparse-events  message.start/message.end with empty data lines, prompt_processing.end twice
          mcp-private    an mcp_connection_error event: the MCP URL is not a public address
                         (0.4.15+, lmstudio-bug-tracker#1993)
          split=every    one byte per socket write (TCP_NODELAY); split=random: seeded random sizes
          seed=N         seed for split=random
          stall=S        send nothing for S seconds after the third delta of the answer
          tool-stall=S   with tools: send nothing for S seconds while the first tool call runs
          tool-drop      with tools: close the connection while the first tool call runs
          tool-name=S    with tools: a tool_call.name event (not documented, seen on 0.4.12), then S seconds of
                         silence while the first call's arguments are written
          prefill=S      spread the prompt processing progress events over S seconds
          reasoning      force reasoning deltas
          tools          reasoning, search_docs success, message, open_browser failure, message
          tool-calls=N   N search_docs successes, each followed by a line of answer, before it
          large=N        answer with about N bytes of mixed Markdown (N up to 400 MB)
          prose          make the large=N text paragraphs only (emphasis, code spans, links)
          delta=N        answer and reasoning deltas of N characters each
          rate=N         N answer and reasoning deltas a second (overrides --token-delay)
          escape         answer and reasoning contain ESC[2J, OSC 52, OSC 0, BEL and 8-bit CSI
          slow-load      a JIT load sends 20 progress events spaced by max(token delay, 0.05 s);
                         in X-Sim-Faults on /api/v1/models/load, the load takes 20 such steps
          status=N       answer with HTTP status N and an error object (any endpoint via header)
          done-marker    send `data: [DONE]` after chat.end
          rewrite        chat.end's result carries an answer that differs from the streamed deltas
                         (prefixed "Revised: "), as a server that post-processes its output would
          final-whitespace  the streamed answer ends with a space; chat.end's is the same in NFD
                         ending with a newline instead (the same answer, as a server that trims)
          large-reasoning=N  reason with about N bytes of text (multi-byte characters included)
          bad-event=K    after the answer's first delta, a delta no JSON parser accepts: K is surrogate
                         (a lone \\ud800), nul (a raw NUL in the string) or nesting (1,000 nested arrays)
          after-end      a message.delta after chat.end
          final-drop=P   chat.end drops what streamed: P is answer (empty content), reasoning or tools
                         (repeat for several)
          overflow-stats chat.end's stats.input_tokens is 99999999999999999999 (beyond Int64)
          html           answer the chat request with HTTP 200 and an HTML page
          gzip           send the body gzip-compressed (Content-Encoding: gzip), as a proxy may; in
                         X-Sim-Faults it applies to any endpoint

        Scripted answers: input containing `echo:` is answered with exactly the text after it
        (one space after the colon dropped); else the word `recall` gives
        `Earlier you said: "<first input of the chain>"` or `Nothing earlier in this conversation.`;
        else large=N text; else "You said: *<input>*" with a paragraph, a list and a code block
        (prefixed by how many images it saw).
        """
}
