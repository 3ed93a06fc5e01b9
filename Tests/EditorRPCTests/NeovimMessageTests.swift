import Foundation
import Simulator
import TestSupport
import Testing

/// llmster.nvim's messages in a real Neovim on a narrow pseudo-terminal: one wider than the window would stop the
/// editor at a hit-enter prompt, which headless Neovim never shows.
@Suite(.spawnsProcesses) struct NeovimMessageTests {
    /// An init file that sends a prompt to a server that is down and, once the failure is shown, writes Neovim's
    /// mode (`r` is the hit-enter prompt) and the message history's last line to `result`.
    static func initFile(llmster: String, result: String) -> String {
        """
        vim.opt.rtp:prepend('\(NeovimUndoTests.plugin)')
        local llmster = require('llmster')
        llmster.setup({ cmd = { '\(llmster)' } })
        vim.api.nvim_create_autocmd('VimEnter', { once = true, callback = function()
          local buffer = llmster.open()
          vim.api.nvim_buf_set_lines(buffer, -1, -1, false, { 'hello' })
          vim.api.nvim_create_autocmd('User', { pattern = 'LlmsterReply', once = true, callback = function()
            vim.schedule(function()
              local history = vim.split(vim.api.nvim_exec('messages', true), '\\n')
              vim.fn.writefile({ vim.fn.mode(1), history[#history] }, '\(result)')
              vim.cmd('echo "LLMSTER-MSG-" . "DONE"')
            end)
          end })
          llmster.send_chat(buffer)
        end })
        """
    }

    @Test func anErrorWiderThanTheWindowAsksForNoEnter() async throws {
        let sandbox = try Sandbox()
        let result = sandbox.root + "/message-result"
        try sandbox.write(Self.initFile(llmster: try BuiltProduct.path("llmster"), result: result), to: "init.lua")
        // Nothing listens on port 9 (discard): the send fails with llmster's long "cannot reach" message.
        let nvim = try Pseudoterminal(
            "/usr/bin/env", ["nvim", "-n", "-i", "NONE", "-u", sandbox.root + "/init.lua"],
            environment: sandbox.environment(server: "http://127.0.0.1:9"), width: 50, height: 20)
        let screen = try await nvim.waitFor("LLMSTER-MSG-DONE", seconds: 60)
        nvim.send("\u{1B}:qa!\r")
        #expect(try await nvim.waitForExit() == 0)
        let lines = try String(contentsOfFile: result, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false
        ).map(String.init)
        try #require(lines.count >= 2)
        #expect(lines[0] == "n", "Neovim waits in mode \(lines[0]) (r: a hit-enter prompt)")
        #expect(!screen.contains("Press ENTER"), "\(screen)")
        #expect(lines[1].contains("llmster:"), "the message is in :messages: \(lines[1])")
    }
}
