-- Headless tests of llmster.nvim against `llmster rpc` and `lmstudio-sim --token-delay 0`.
-- Run from the repository root:
--   LLMSTER_BIN_DIR=$(swift build --show-bin-path) nvim --headless -u NONE -i NONE \
--     --cmd 'set rtp^=contrib/nvim' -c 'luafile contrib/nvim/test/llmster_spec.lua'
-- Exits 0 when every test passes, 1 otherwise.

local failures, passed = 0, 0

local function report(text) io.stderr:write(text .. '\n') end

local function finish()
  report(string.format('%d passed, %d failed', passed, failures))
  os.exit(failures == 0 and 0 or 1)
end

local ok, err = pcall(function()
  local bin = os.getenv('LLMSTER_BIN_DIR')
  assert(bin and vim.fn.executable(bin .. '/llmster') == 1,
    'set LLMSTER_BIN_DIR to the directory of the built llmster and lmstudio-sim (swift build --show-bin-path)')

  -- A sandboxed XDG home, and the simulator.
  local home = vim.fn.tempname()
  for _, sub in ipairs({ 'data', 'config', 'state' }) do vim.fn.mkdir(home .. '/' .. sub, 'p') end
  vim.env.XDG_DATA_HOME = home .. '/data'
  vim.env.XDG_CONFIG_HOME = home .. '/config'
  vim.env.XDG_STATE_HOME = home .. '/state'
  local url
  local simulator = vim.fn.jobstart({ bin .. '/lmstudio-sim', '--token-delay', '0', '--exit-on-eof' }, {
    on_stdout = function(_, data)
      if not url and data[1] and data[1]:match('^http') then url = data[1] end
    end,
  })
  assert(simulator > 0, 'cannot start lmstudio-sim')
  assert(vim.wait(30000, function() return url ~= nil end, 10), 'the simulator did not print its URL')
  vim.env.LLMSTER_SERVER = url

  vim.cmd('runtime plugin/llmster.lua')
  local llmster = require('llmster')
  llmster.setup({ cmd = { bin .. '/llmster' } })

  local function wait(predicate, what)
    assert(vim.wait(30000, predicate, 10), 'timed out waiting for ' .. what)
  end
  local function text(buffer) return table.concat(vim.api.nvim_buf_get_lines(buffer, 0, -1, false), '\n') end
  local function type_input(buffer, line) vim.api.nvim_buf_set_lines(buffer, -1, -1, false, { line }) end

  local tests, order = {}, {}
  local function test(name, body) tests[name] = body table.insert(order, name) end

  test('model list shows loaded state and size', function()
    local models = llmster.models()
    local tiny
    for _, m in ipairs(models) do if m.key == 'acme/tiny-1b' then tiny = m end end
    assert(tiny, 'acme/tiny-1b is listed')
    local line = llmster.format_model(tiny)
    assert(line:find('loaded', 1, true), line)
    assert(line:find('MB', 1, true) or line:find('GB', 1, true), line)
    vim.cmd('Llmster')
    local original = vim.ui.select
    vim.ui.select = function(items, options, choose)
      assert(#items > 0 and options.format_item(items[1]) ~= '')
      for _, item in ipairs(items) do if item.key == 'acme/tiny-1b' then choose(item) end end
    end
    vim.cmd('LlmsterModels')
    vim.ui.select = original
    assert(llmster.chat().model == 'acme/tiny-1b', 'the chosen model is kept for the chat')
  end)

  test('send streams the reply at the mark, cursor stays put', function()
    vim.cmd('Llmster')
    local buffer = vim.api.nvim_get_current_buf()
    type_input(buffer, 'echo:Hello from *Neovim*')
    vim.cmd('LlmsterSend')
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    wait(function() return not llmster.streaming(buffer) end, 'the reply')
    local body = text(buffer)
    assert(body:find('### Assistant\nHello from %*Neovim%*'), body)
    assert(body:match('### You\n$'), 'a fresh input area follows: ' .. body)
    assert(vim.api.nvim_win_get_cursor(0)[1] == 1, 'the cursor did not move')
    assert(llmster.chat(buffer).conversation, 'the conversation id is known')
  end)

  test('a rewritten answer replaces the streamed text', function()
    vim.cmd('Llmster')
    local buffer = vim.api.nvim_get_current_buf()
    type_input(buffer, '[[sim:rewrite]] echo:first draft')
    vim.cmd('LlmsterSend')
    wait(function() return not llmster.streaming(buffer) end, 'the reply')
    local body = text(buffer)
    assert(body:find('### Assistant\nRevised: first draft\n'), body)
    assert(not body:find('first draftRevised'), body)
  end)

  test('a range from another buffer is sent to a chat', function()
    local source = vim.api.nvim_create_buf(true, true)
    vim.api.nvim_buf_set_lines(source, 0, -1, false, { 'ignored', 'echo:from a range', 'ignored too' })
    vim.api.nvim_set_current_buf(source)
    vim.cmd('2LlmsterSend')
    local chat = vim.api.nvim_get_current_buf()
    wait(function() return not llmster.streaming(chat) end, 'the reply')
    assert(text(chat):find('### Assistant\nfrom a range'), text(chat))
  end)

  test('cancel keeps the partial reply, saved incomplete', function()
    vim.cmd('Llmster')
    local buffer = vim.api.nvim_get_current_buf()
    type_input(buffer, '[[sim:stall=30]] echo:one two three four five six')
    vim.cmd('LlmsterSend')
    wait(function() return text(buffer):find('### Assistant\none') ~= nil end, 'the first words')
    vim.cmd('LlmsterCancel')
    wait(function() return not llmster.streaming(buffer) end, 'the cancelled reply')
    assert(text(buffer):find('[incomplete, cancelled]', 1, true), text(buffer))
    local answer = llmster.request_sync('conversations/get', { id = llmster.chat(buffer).conversation })
    local reply = answer.messages[#answer.messages]
    assert(reply.status == 'incomplete', reply.status)
    assert(reply.text:sub(1, 3) == 'one', reply.text)
  end)

  test('partial lines from jobstart are joined', function()
    vim.cmd('Llmster')
    local buffer = vim.api.nvim_get_current_buf()
    type_input(buffer, '[[sim:large=200000]] go')
    vim.cmd('LlmsterSend')
    wait(function() return not llmster.streaming(buffer) end, 'the large reply')
    local answer = llmster.request_sync('conversations/get', { id = llmster.chat(buffer).conversation })
    local reply = answer.messages[#answer.messages]
    assert(reply.status == 'complete', reply.status)
    assert(#reply.text > 150000, 'a large reply arrived whole')
    assert(text(buffer):find(reply.text, 1, true), 'the buffer holds the whole reply')
  end)

  test('chat list opens a conversation', function()
    local list = llmster.list_chats()
    local body = text(list)
    assert(body:find('echo:Hello from *Neovim*', 1, true), body)
    local lines = vim.api.nvim_buf_get_lines(list, 0, -1, false)
    for index, line in ipairs(lines) do
      if line:find('echo:Hello from', 1, true) then vim.api.nvim_win_set_cursor(0, { index, 0 }) end
    end
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)
    local opened = vim.api.nvim_get_current_buf()
    assert(opened ~= list, 'a chat buffer opened')
    assert(text(opened):find('Hello from *Neovim*', 1, true), text(opened))
  end)

  -- In order: the chat list expects the conversations the send tests made.
  for _, name in ipairs(order) do
    local passed_ok, failure = pcall(tests[name])
    if passed_ok then
      passed = passed + 1
      report('ok   ' .. name)
    else
      failures = failures + 1
      report('FAIL ' .. name .. ': ' .. tostring(failure))
    end
  end
  llmster.stop()
  vim.fn.jobstop(simulator)
  vim.fn.delete(home, 'rf')
end)

if not ok then
  failures = failures + 1
  report('FAIL setup: ' .. tostring(err))
end
finish()
