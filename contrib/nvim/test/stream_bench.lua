-- How long a long reply takes to stream into a Neovim chat: the counterpart of
-- contrib/emacs/test/llmster-stream-bench.el, run beside it by `make editor-bench`.
-- Run from the repository root:
--   LLMSTER_BIN_DIR=$(swift build --show-bin-path) nvim --headless -u NONE -i NONE \
--     --cmd 'set rtp^=contrib/nvim' -c 'luafile contrib/nvim/test/stream_bench.lua'
-- Streams a reply of about LLMSTER_BENCH_BYTES (default 500000) from `lmstudio-sim' into a chat shown in the
-- window, three times, and prints the seconds from the send to the end of the reply (median and worst); then how
-- long reopening that conversation takes. It prints figures and asserts nothing.

local bin = os.getenv('LLMSTER_BIN_DIR')
local bytes = tonumber(os.getenv('LLMSTER_BENCH_BYTES') or '500000')
local function say(text) io.stderr:write('llmster stream bench (Neovim): ' .. text .. '\n') end

local ok, err = pcall(function()
  assert(bin and vim.fn.executable(bin .. '/llmster') == 1, 'set LLMSTER_BIN_DIR to the directory of the built llmster')
  local home = vim.fn.tempname()
  for _, sub in ipairs({ 'data', 'config', 'state', 'cache' }) do vim.fn.mkdir(home .. '/' .. sub, 'p') end
  vim.env.XDG_CACHE_HOME, vim.env.XDG_DATA_HOME = home .. '/cache', home .. '/data'
  vim.env.XDG_CONFIG_HOME, vim.env.XDG_STATE_HOME = home .. '/config', home .. '/state'
  local url
  local simulator = vim.fn.jobstart({ bin .. '/lmstudio-sim', '--token-delay', '0', '--exit-on-eof' }, {
    on_stdout = function(_, data) if not url and data[1] and data[1]:match('^http') then url = data[1] end end,
  })
  assert(vim.wait(30000, function() return url ~= nil end, 10), 'the simulator did not print its URL')
  vim.env.LLMSTER_SERVER = url
  vim.cmd('runtime plugin/llmster.lua')
  local llmster = require('llmster')
  llmster.setup({ cmd = { bin .. '/llmster' } })

  local times, conversation = {}, nil
  for _ = 1, 3 do
    local buffer = llmster.open()
    vim.api.nvim_set_current_buf(buffer)
    vim.api.nvim_buf_set_lines(buffer, -1, -1, false, { string.format('[[sim:large=%d]] go', bytes) })
    local start = vim.loop.hrtime()
    llmster.send_chat(buffer)
    assert(vim.wait(300000, function()
      vim.cmd('redraw')
      return not llmster.streaming(buffer)
    end, 20), 'the reply did not end')
    table.insert(times, (vim.loop.hrtime() - start) / 1e9)
    conversation = llmster.chat(buffer).conversation
    vim.cmd('bwipeout! ' .. buffer)
  end
  table.sort(times)
  say(string.format('%d KB reply into a chat: %.2f s (median of 3), %.2f s worst', math.floor(bytes / 1000), times[2], times[3]))

  local reopen = {}
  for _ = 1, 5 do
    local start = vim.loop.hrtime()
    local buffer = llmster.open(conversation)
    vim.api.nvim_set_current_buf(buffer)
    vim.cmd('redraw')
    table.insert(reopen, (vim.loop.hrtime() - start) / 1e6)
    vim.cmd('bwipeout! ' .. buffer)
  end
  table.sort(reopen)
  say(string.format('reopening the %d KB conversation: %.0f ms (median of 5), %.0f ms worst', math.floor(bytes / 1000), reopen[3], reopen[5]))
  llmster.stop()
  vim.fn.jobstop(simulator)
  vim.fn.delete(home, 'rf')
end)
if not ok then say('failed: ' .. tostring(err)) end
os.exit(ok and 0 or 1)
