import Foundation
import Simulator
import TestSupport
import Testing

/// llmster.nvim in a real Neovim on a pseudo-terminal: headless Neovim groups undo on its own, an interactive one does not.
@Suite(.spawnsProcesses) struct NeovimUndoTests {
    /// The plugin's directory in this checkout.
    static let plugin = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("contrib/nvim").path

    /// An init file that types a prompt, sends it, and after the reply writes what undo did to `result`.
    static func initFile(llmster: String, result: String) -> String {
        """
        vim.opt.rtp:prepend('\(plugin)')
        vim.opt.undolevels = 100
        local llmster = require('llmster')
        llmster.setup({ cmd = { '\(llmster)' }, coalesce_ms = 1 })
        local function text(buffer) return table.concat(vim.api.nvim_buf_get_lines(buffer, 0, -1, false), '\\n') end
        vim.api.nvim_create_autocmd('VimEnter', { once = true, callback = function()
          local buffer = llmster.open()
          vim.api.nvim_buf_set_lines(buffer, -1, -1, false, { '[[sim:large=30000 delta=8]] go' })
          vim.defer_fn(function()
            local before, typed = vim.fn.changenr(), text(buffer)
            vim.api.nvim_create_autocmd('User', { pattern = 'LlmsterReply', once = true, callback = function()
              local steps, replied = vim.fn.changenr() - before, #text(buffer)
              vim.cmd('undo')
              local undone = text(buffer) == typed
              vim.cmd('redo')
              local redone = #text(buffer) == replied
              vim.fn.writefile({ tostring(steps), tostring(undone), tostring(redone), tostring(replied) }, '\(result)')
              vim.cmd('echo "LLMSTER-UNDO-" . "DONE"')
            end })
            llmster.send_chat(buffer)
          end, 0)
        end })
        """
    }

    /// An init file that sends a prompt, presses `u` while the reply streams, then sends the prompt again; writes to
    /// `result` whether the reply stopped, what the buffer held, the errors seen and the second reply.
    static func undoWhileStreamingInitFile(llmster: String, result: String) -> String {
        """
        vim.opt.rtp:prepend('\(plugin)')
        vim.opt.undolevels = 100
        local llmster = require('llmster')
        local client = require('llmster.client')
        llmster.setup({ cmd = { '\(llmster)' }, coalesce_ms = 1 })
        local function text(buffer) return table.concat(vim.api.nvim_buf_get_lines(buffer, 0, -1, false), '\\n') end
        local errors = {}
        vim.notify = function(message, level)
          if level == vim.log.levels.ERROR then table.insert(errors, message) end
        end
        vim.api.nvim_create_autocmd('VimEnter', { once = true, callback = function()
          local buffer = llmster.open()
          vim.api.nvim_buf_set_lines(buffer, -1, -1, false, { '[[sim:large=30000 delta=8]] undo me' })
          vim.defer_fn(function()
            local typed, events = text(buffer), 0
            -- The user presses u after the fifth event of the reply.
            local request = client.request
            client.request = function(method, params, on_result, on_event)
              return request(method, params, on_result, on_event and function(...)
                events = events + 1
                if events == 5 then vim.schedule(function() vim.cmd('undo') end) end
                on_event(...)
              end)
            end
            llmster.send_chat(buffer)
            client.request = request
            local stopped = vim.wait(60000, function() return events >= 5 and not llmster.streaming(buffer) end, 10)
            local after_undo = text(buffer)
            vim.api.nvim_create_autocmd('User', { pattern = 'LlmsterReply', once = true, callback = function()
              local again = text(buffer):find('### Assistant', 1, true) ~= nil and not llmster.streaming(buffer)
              vim.fn.writefile({ tostring(stopped), tostring(after_undo == typed), tostring(#errors), tostring(again),
                (table.concat(errors, ' | '):gsub('\\n', ' ')) }, '\(result)')
              vim.cmd('echo "LLMSTER-UNDO-" . "DONE"')
            end })
            if stopped then llmster.send_chat(buffer) else vim.api.nvim_exec_autocmds('User', { pattern = 'LlmsterReply' }) end
          end, 0)
        end })
        """
    }

    @Test func undoWhileAReplyStreamsCancelsItAndTheChatGoesOn() async throws {
        let fixture = try SimulatorFixture(SimulatorOptions(tokenDelay: 0.0005))
        let sandbox = try Sandbox()
        let result = sandbox.root + "/undo-result"
        try sandbox.write(
            Self.undoWhileStreamingInitFile(llmster: try BuiltProduct.path("llmster"), result: result), to: "init.lua")
        let nvim = try Pseudoterminal(
            "/usr/bin/env", ["nvim", "-n", "-i", "NONE", "-u", sandbox.root + "/init.lua"],
            environment: sandbox.environment(server: fixture.url))
        try await nvim.waitFor("LLMSTER-UNDO-DONE", seconds: 120)
        nvim.send("\u{1B}:qa!\r")
        #expect(try await nvim.waitForExit() == 0)
        let lines = try String(contentsOfFile: result, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false
        ).map(String.init)
        try #require(lines.count >= 4)
        #expect(lines[0] == "true", "the reply stops streaming after the undo")
        #expect(lines[1] == "true", "undo takes the send back to the typed prompt")
        #expect(lines[2] == "0", "no errors: \(lines.count > 4 ? lines[4] : "")")
        #expect(lines[3] == "true", "the prompt can be sent again")
    }

    @Test func aStreamedReplyIsOneUndoStep() async throws {
        let fixture = try SimulatorFixture(SimulatorOptions(tokenDelay: 0.0005))
        let sandbox = try Sandbox()
        let result = sandbox.root + "/undo-result"
        try sandbox.write(Self.initFile(llmster: try BuiltProduct.path("llmster"), result: result), to: "init.lua")
        let nvim = try Pseudoterminal(
            "/usr/bin/env", ["nvim", "-n", "-i", "NONE", "-u", sandbox.root + "/init.lua"],
            environment: sandbox.environment(server: fixture.url))
        try await nvim.waitFor("LLMSTER-UNDO-DONE", seconds: 120)
        nvim.send("\u{1B}:qa!\r")
        #expect(try await nvim.waitForExit() == 0)
        let lines = try String(contentsOfFile: result, encoding: .utf8).split(separator: "\n").map(String.init)
        try #require(lines.count == 4)
        #expect(lines[0] == "1", "the send and its streamed reply make one undo step, not \(lines[0])")
        #expect(lines[1] == "true", "one undo takes the whole reply away")
        #expect(lines[2] == "true", "one redo brings it back")
        #expect((Int(lines[3]) ?? 0) > 25_000, "the reply was long: \(lines[3]) characters")
    }
}
