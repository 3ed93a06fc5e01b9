-- Headless tests of llmster.nvim against `llmster rpc` and `lmstudio-sim --token-delay 0`.
-- Run from the repository root:
--   LLMSTER_BIN_DIR=$(swift build --show-bin-path) nvim --headless -u NONE -i NONE \
--     --cmd 'set rtp^=contrib/nvim' -c 'luafile contrib/nvim/test/llmster_spec.lua'
-- Exits 0 when every test passes, 1 otherwise. LLMSTER_TEST=words runs only the tests whose name holds them.
-- The undo check needs an interactive Neovim: Tests/EditorRPCTests/NeovimUndoTests.swift.

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
  for _, sub in ipairs({ 'data', 'config', 'state', 'cache' }) do vim.fn.mkdir(home .. '/' .. sub, 'p') end
  vim.env.XDG_CACHE_HOME = home .. '/cache'
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

  -- A picker nobody answers: a headless inputlist() would wait for keys.
  vim.ui.select = function(_, _, choose) choose(nil, nil) end
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
    assert(text(buffer):find('\n[incomplete: Cancelled', 1, true), text(buffer))
    local answer = llmster.request_sync('conversations/get', { id = llmster.chat(buffer).conversation })
    local reply = answer.messages[#answer.messages]
    assert(reply.status == 'incomplete', reply.status)
    assert(reply.text:sub(1, 3) == 'one', reply.text)
  end)

  test('a call given up on is cancelled in llmster too', function()
    local client = require('llmster.client')
    local timeout = client.config.timeout
    client.config.timeout = 0.5
    local ok, err = pcall(client.call, 'chat/send', { text = '[[sim:stall=30]] echo:one two three four five six' })
    client.config.timeout = timeout
    assert(not ok and tostring(err):find('no answer to chat/send', 1, true), tostring(err))
    -- The reply stops now, kept incomplete, rather than streaming on for 30 s with no one waiting for it.
    wait(function()
      local conversation = llmster.request_sync('conversations/list', {}).conversations[1]
      local messages = conversation and llmster.request_sync('conversations/get', { id = conversation.id }).messages
      return messages ~= nil and messages[#messages].status == 'incomplete'
    end, 'the reply given up on to end incomplete')
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
    -- Its own conversation: the test does not lean on what earlier tests sent.
    llmster.request_sync('chat/send', { text = 'echo:Listed for *the list*' })
    local list = llmster.list_chats()
    local body = text(list)
    assert(body:find('echo:Listed for *the list*', 1, true), body)
    local lines = vim.api.nvim_buf_get_lines(list, 0, -1, false)
    for index, line in ipairs(lines) do
      if line:find('echo:Listed for', 1, true) then vim.api.nvim_win_set_cursor(0, { index, 0 }) end
    end
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)
    local opened = vim.api.nvim_get_current_buf()
    assert(opened ~= list, 'a chat buffer opened')
    assert(text(opened):find('Listed for *the list*', 1, true), text(opened))
  end)


  local function notifications(body)
    local seen, original = {}, vim.notify
    vim.notify = function(message, level) table.insert(seen, { message = message, level = level }) end
    local ok, failure = pcall(body)
    vim.notify = original
    assert(ok, failure)
    return seen
  end
  local function select_with(chooser, body)
    local original = vim.ui.select
    vim.ui.select = function(items, options, choose) choose(chooser(items, options)) end
    local ok, failure = pcall(body)
    vim.ui.select = original
    assert(ok, failure)
  end
  -- Runs fn with llmster stopped and its program not to be found; llmster starts again afterwards.
local function without_llmster(fn)
  local client = require('llmster.client')
  local cmd = client.config.cmd
  client.stop()
  client.config.cmd = { 'no-such-llmster' }
  local ok, failure = pcall(fn)
  client.config.cmd = cmd
  if not ok then error(failure, 0) end
end

local function new_chat(input)
    vim.cmd('Llmster')
    local buffer = vim.api.nvim_get_current_buf()
    if input then
      type_input(buffer, input)
      vim.cmd('LlmsterSend')
      wait(function() return not llmster.streaming(buffer) end, 'the reply to ' .. input)
    end
    return buffer
  end
  local function saved(buffer)
    return llmster.request_sync('conversations/get', { id = llmster.chat(buffer).conversation })
  end
  -- Runs `body` with `lines` added to the suite's config, which it then puts back as it was, also when `body` fails.
  -- Written before `body` starts a request: llmster rpc reads a changed config at the next request that finds none
  -- running.
  local function with_config(lines, body)
    local path = vim.env.XDG_CONFIG_HOME .. '/llmster/config'
    vim.fn.mkdir(vim.fn.fnamemodify(path, ':h'), 'p')
    local before = vim.fn.filereadable(path) == 1 and vim.fn.readfile(path) or {}
    vim.fn.writefile(vim.list_extend(vim.deepcopy(before), lines), path)
    local ok, failure = pcall(body)
    vim.fn.writefile(before, path)
    assert(ok, failure)
  end
  local function reset_simulator()
    vim.fn.system({ 'curl', '-s', '-X', 'POST', url .. '/__sim/reset' })
    assert(vim.v.shell_error == 0, 'the simulator reset')
  end

  -- The `input` of the last chat request the simulator received.
  local function last_chat_input()
    local requests = vim.json.decode(vim.fn.system({ 'curl', '-s', url .. '/__sim/requests' }))
    for index = #requests, 1, -1 do
      if requests[index].path == '/api/v1/chat' then
        local input = requests[index].body.input
        return type(input) == 'string' and input or vim.json.encode(input)
      end
    end
    return ''
  end

  test('undo while a reply streams cancels it and leaves the chat usable', function()
    with_config({ 'preset.polite.template = {{input}}, please' }, function()
      local buffer = new_chat('echo:one')
      llmster.edit_last(buffer)
      vim.api.nvim_buf_set_lines(buffer, -2, -1, false, { 'echo:one edited' })
      llmster.send_chat(buffer)
      wait(function() return not llmster.streaming(buffer) end, 'the edited reply')
      local file = vim.fn.tempname() .. '.txt'
      vim.fn.writefile({ 'remember this' }, file)
      llmster.add_context(file, buffer)
      llmster.apply_preset('polite', buffer)
      type_input(buffer, '[[sim:stall=1]] echo:slow two three four five six seven')
      local typed = text(buffer)
      -- Headless Neovim keeps a script's changes in one undo block: end the typing's block, as a key press would.
      vim.cmd('let &undolevels = &undolevels')
      vim.v.errmsg = ''
      local seen = notifications(function()
        vim.cmd('LlmsterSend')
        wait(function() return text(buffer):find('### Assistant\nslow') ~= nil end, 'the first words')
        vim.cmd('silent undo')
        wait(function() return not llmster.streaming(buffer) end, 'the reply to stop')
      end)
      assert(text(buffer) == typed, 'undo took the send back: ' .. text(buffer))
      local errors = vim.tbl_filter(function(n) return n.level == vim.log.levels.ERROR end, seen)
      assert(#errors == 0 and vim.v.errmsg == '', vim.inspect(errors) .. vim.v.errmsg)
      assert(not llmster.statusline():find('streaming', 1, true), llmster.statusline())
      assert(#llmster.context(buffer) == 1, 'the context item taken back waits again: ' .. vim.inspect(llmster.context(buffer)))
      assert(llmster.chat(buffer).template_preset == 'polite', 'the template taken back waits again')
      -- The library withdrew the exchange too: it holds what the buffer shows.
      local texts
      wait(function()
        texts = vim.tbl_map(function(m) return m.text end, saved(buffer).messages)
        return #texts == 2
      end, 'the exchange to leave the library')
      assert(vim.deep_equal(texts, { 'echo:one edited', 'one edited' }), vim.inspect(texts))
      -- Regenerate answers the message shown last, and its versions are offered.
      vim.cmd('LlmsterRegenerate')
      wait(function() return not llmster.streaming(buffer) end, 'the regenerated reply')
      assert(last_chat_input() == 'echo:one edited', last_chat_input())
      assert(text(buffer):match('### You\necho:one edited\n\n### Assistant\none edited\n\n### You\n\n%[%[sim:stall=1%]%] echo:slow'), text(buffer))
      local versions
      select_with(function(items) versions = #items return nil, nil end, function() llmster.pick_alternative(buffer, true) end)
      assert(versions == 2, 'the two versions of the message: ' .. tostring(versions))
      vim.cmd('LlmsterSend')
      wait(function() return not llmster.streaming(buffer) end, 'the reply sent again')
      assert(text(buffer):match('### Assistant\nslow two three four five six seven, please\n\n### You\n$'), text(buffer))
      -- Undo while an edit streams leaves the chat editing its last message again, which the library holds as current.
      llmster.edit_last(buffer)
      local function replace_input(line)
        local rows = vim.api.nvim_buf_get_lines(buffer, 0, -1, false)
        local header = #rows
        while rows[header] ~= '### You' do header = header - 1 end
        vim.api.nvim_buf_set_lines(buffer, header, -1, false, { line })
      end
      replace_input('[[sim:stall=1]] echo:slow edit one two three four')
      local editing = text(buffer)
      vim.cmd('let &undolevels = &undolevels')
      llmster.send_chat(buffer)
      wait(function() return text(buffer):find('### Assistant\nslow edit') ~= nil end, 'the first words of the edit')
      vim.cmd('silent undo')
      wait(function() return not llmster.streaming(buffer) and not llmster.chat(buffer).withdrawing end, 'the edit to stop')
      assert(text(buffer) == editing and llmster.editing(buffer), 'undo took the edit back: ' .. text(buffer))
      local last = saved(buffer).messages
      assert(last[#last].text == 'slow two three four five six seven, please', 'the library holds the last message again: ' .. vim.inspect(last))
      replace_input('echo:edited at last')
      llmster.send_chat(buffer)
      wait(function() return not llmster.streaming(buffer) end, 'the edit sent again')
      last = saved(buffer).messages
      assert(#last == 4 and last[4].text == 'edited at last', 'the edit replaced the last message: ' .. vim.inspect(last))
    end)
  end)

  test('undo while an answer asked again streams brings the answer before back, here and in the library', function()
    local buffer = new_chat('echo:one')
    type_input(buffer, '[[sim:stall=1]] echo:two three four five six')
    vim.cmd('LlmsterSend')
    wait(function() return not llmster.streaming(buffer) end, 'the first answer')
    local shown = saved(buffer).messages[4].id
    -- What the reply's end scheduled (callbacks run in order) has drawn before the text is taken.
    local flushed = false
    vim.schedule(function() flushed = true end)
    wait(function() return flushed end, 'the drawing scheduled at the reply\'s end')
    local before = text(buffer)
    vim.cmd('let &undolevels = &undolevels')
    vim.v.errmsg = ''
    local seen = notifications(function()
      vim.cmd('LlmsterRegenerate')
      wait(function() return llmster.streaming(buffer) and text(buffer):find('### Assistant\ntwo') ~= nil end, 'the answer asked again')
      vim.cmd('silent undo')
      wait(function() return not llmster.streaming(buffer) and not llmster.chat(buffer).withdrawing end, 'the undo')
    end)
    assert(text(buffer) == before, 'undo brought the answer before back: ' .. text(buffer))
    local errors = vim.tbl_filter(function(n) return n.level == vim.log.levels.ERROR end, seen)
    assert(#errors == 0 and vim.v.errmsg == '', vim.inspect(errors) .. vim.v.errmsg)
    local messages = saved(buffer).messages
    assert(#messages == 4 and messages[4].id == shown, 'the library holds the answer shown: ' .. vim.inspect(messages))
    local alternatives = llmster.request_sync('conversations/alternatives', { conversationId = llmster.chat(buffer).conversation })
    assert(#alternatives.alternatives == 1, 'the answer taken back left the library: ' .. vim.inspect(alternatives))
    type_input(buffer, 'echo:three')
    vim.cmd('LlmsterSend')
    wait(function() return not llmster.streaming(buffer) end, 'the next reply')
    assert(text(buffer):match('### Assistant\nthree\n\n### You\n$'), text(buffer))
  end)

  test('reasoning written inside <think> tags in the answer is folded as reasoning, without the tags', function()
    local buffer = new_chat('[[sim:think-tags]] echo:the answer')
    local reasoning = saved(buffer).messages[2].reasoning
    assert(reasoning and #reasoning > 20, 'the reasoning was taken out of the answer and saved as such')
    local folds = llmster.folds(buffer)
    assert(#folds == 1, 'one fold: ' .. vim.inspect(folds))
    local first, last = unpack(folds[1])
    local folded = table.concat(vim.api.nvim_buf_get_lines(buffer, first - 1, last, false), '\n')
    assert(folded == reasoning, 'the whole reasoning, exactly: ' .. folded)
    assert(vim.api.nvim_buf_get_lines(buffer, last + 1, last + 2, false)[1] == 'the answer', text(buffer))
    assert(not text(buffer):find('</?think>'), 'no tags are shown: ' .. text(buffer))
  end)

  test('reasoning is folded with a one-line summary, toggleable, whole', function()
    -- The engine's reasoning time, as chat/event reasoning.end carries it.
    local client, engine_seconds = require('llmster.client'), nil
    local request = client.request
    client.request = function(method, params, on_result, on_event)
      return request(method, params, on_result, on_event and function(event, ...)
        if event.type == 'reasoning.end' then engine_seconds = event.seconds end
        on_event(event, ...)
      end)
    end
    local ok, buffer = pcall(new_chat, '[[sim:reasoning]] echo:the answer')
    client.request = request
    assert(ok, buffer)
    local reasoning = saved(buffer).messages[2].reasoning
    assert(reasoning and #reasoning > 20, 'the simulator reasoned')
    local folds = llmster.folds(buffer)
    assert(#folds == 1, 'one fold: ' .. vim.inspect(folds))
    local first, last, summary = unpack(folds[1])
    assert(type(engine_seconds) == 'number', 'the engine timed the reasoning')
    -- The saved reply's label, as the reopened chat shows it.
    assert(summary == '▸ ' .. saved(buffer).messages[2].reasoningLabel and summary:find('^▸ Thought for [%d.]+ s$'), summary)
    local folded = table.concat(vim.api.nvim_buf_get_lines(buffer, first - 1, last, false), '\n')
    assert(folded == reasoning, 'the whole reasoning, exactly: ' .. folded)
    assert(vim.fn.foldclosed(first) == first, 'folded by default')
    assert(vim.fn.foldtextresult(first):find('▸ Thought for', 1, true), vim.fn.foldtextresult(first))
    assert(vim.fn.foldclosed(last + 2) == -1, 'the answer is not folded')
    assert(vim.api.nvim_buf_get_lines(buffer, last + 1, last + 2, false)[1] == 'the answer', text(buffer))
    vim.cmd('LlmsterToggleFolds')
    assert(vim.fn.foldclosed(first) == -1, 'the toggle shows the reasoning')
    vim.cmd('LlmsterToggleFolds')
    assert(vim.fn.foldclosed(first) == first, 'the toggle hides it again')

    local conversation = llmster.chat(buffer).conversation
    vim.cmd('bwipeout ' .. buffer)
    local reopened = llmster.open(conversation)
    local again = llmster.folds(reopened)
    local seconds = saved(reopened).messages[2].reasoningSeconds
    assert(type(seconds) == 'number', 'llmster estimates the saved reasoning time')
    assert(#again == 1 and again[1][3] == string.format('▸ Thought for %.1f s', math.floor(seconds * 10 + 0.5) / 10), vim.inspect(again))
    local shown = table.concat(vim.api.nvim_buf_get_lines(reopened, again[1][1] - 1, again[1][2], false), '\n')
    assert(shown == reasoning, 'a reopened chat shows the saved reasoning: ' .. shown)
    assert(vim.fn.foldclosed(again[1][1]) == again[1][1], 'folded when reopened')
    vim.cmd('silent undo')
    assert(text(reopened):find(reasoning, 1, true), 'undo does not take the transcript away')
  end)

  test('a large reasoning arrives whole and folded', function()
    local buffer = new_chat('[[sim:reasoning large-reasoning=60000]] echo:done')
    local reasoning = saved(buffer).messages[2].reasoning
    local folds = llmster.folds(buffer)
    local shown = table.concat(vim.api.nvim_buf_get_lines(buffer, folds[1][1] - 1, folds[1][2], false), '\n')
    assert(#reasoning > 50000 and shown == reasoning, 'whole: ' .. #shown .. ' of ' .. #reasoning)
  end)

  test('after a send the cursor stays in the input, and typing never enters the reply', function()
    vim.cmd('Llmster')
    local buffer = vim.api.nvim_get_current_buf()
    type_input(buffer, '[[sim:stall=30]] echo:one two three four five six')
    vim.api.nvim_win_set_cursor(0, { vim.api.nvim_buf_line_count(buffer), 0 })
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)
    wait(function() return text(buffer):find('### Assistant\none') ~= nil end, 'the first words')
    local row = vim.api.nvim_win_get_cursor(0)[1]
    assert(row == vim.api.nvim_buf_line_count(buffer) and row - 1 > vim.fn.search('^### You$', 'bnW') - 1,
      'the cursor is in the input area: ' .. row .. '\n' .. text(buffer))
    -- On the reply's line, A and o type into the input area instead.
    local reply_row = vim.fn.search('^one', 'nw')
    vim.api.nvim_win_set_cursor(0, { reply_row, 0 })
    vim.api.nvim_feedkeys('Ahello\27', 'xt', false)
    vim.api.nvim_win_set_cursor(0, { reply_row, 0 })
    vim.api.nvim_feedkeys('oworld\27', 'xt', false)
    llmster.cancel(buffer)
    wait(function() return not llmster.streaming(buffer) end, 'the cancelled reply')
    local body = text(buffer)
    local reply = body:match('### Assistant\n(.-)\n### You')
    assert(reply and reply:find('^one two') and not reply:find('hello') and not reply:find('world'), body)
    assert(body:match('\n### You\nhello\nworld$'), body)
    local saved_reply = llmster.request_sync('conversations/get', { id = llmster.chat(buffer).conversation }).messages[2]
    assert(not saved_reply.text:find('hello') and not saved_reply.text:find('world'), saved_reply.text)
    assert(vim.api.nvim_win_get_cursor(0)[1] == vim.api.nvim_buf_line_count(buffer), 'still in the input area')
  end)

  test('wiping a chat buffer mid-stream cancels the reply', function()
    vim.cmd('Llmster')
    local buffer = vim.api.nvim_get_current_buf()
    type_input(buffer, '[[sim:stall=30]] echo:one two three four five six')
    vim.cmd('LlmsterSend')
    wait(function() return text(buffer):find('### Assistant\none') ~= nil end, 'the first words')
    local conversation = llmster.chat(buffer).conversation
    vim.cmd('bwipeout! ' .. buffer)
    local status
    wait(function()
      local messages = llmster.request_sync('conversations/get', { id = conversation }).messages
      status = messages[#messages].status
      return status ~= 'streaming'
    end, 'the reply to end')
    assert(status == 'incomplete', 'cancelled, not run to the end: ' .. status)
  end)

  test('chat buffers are named after the conversation title', function()
    local buffer = new_chat('echo:naming test')
    wait(function() return vim.api.nvim_buf_get_name(buffer):find('llmster: ', 1, true) ~= nil
      and not vim.api.nvim_buf_get_name(buffer):find('new chat', 1, true) end, 'the title')
    local title = saved(buffer).conversation.title
    assert(vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buffer), ':t') == 'llmster: ' .. title, vim.api.nvim_buf_get_name(buffer))
  end)

  test('errors are one-line notifications, not stack traces', function()
    local scratch = vim.api.nvim_create_buf(true, true)
    vim.api.nvim_set_current_buf(scratch)
    local seen = notifications(function()
      llmster.guard(llmster.send_chat, scratch)
      vim.cmd('LlmsterCancel')
    end)
    assert(#seen == 2, vim.inspect(seen))
    assert(seen[1].message == 'llmster: not a chat buffer: :Llmster opens one, :LlmsterSend from another buffer sends it to a chat', seen[1].message)
    assert(seen[1].level == vim.log.levels.ERROR)
    assert(not seen[1].message:find('stack traceback', 1, true) and not seen[1].message:find('%.lua:%d'), seen[1].message)
  end)

  test('a child that fails is reported with its log file', function()
    local chat = new_chat()
    type_input(chat, 'echo:kept')
    llmster.stop()
    local log = require('llmster.client').log_path()
    assert(vim.startswith(log, home), 'the log is in the sandbox: ' .. log)
    vim.fn.delete(log)
    llmster.setup({ cmd = { 'sh', '-c', 'echo llmster-was-here >&2; exit 3', 'sh' } })
    local checked, failure = pcall(function()
      local seen = notifications(function() vim.cmd('LlmsterSend') end)
      local all = table.concat(vim.tbl_map(function(n) return n.message end, seen), '\n')
      assert(all:find(log, 1, true), 'the log file is named: ' .. all)
      assert(not llmster.streaming(chat) and text(chat) == '### You\n\necho:kept', 'the prompt stays: ' .. text(chat))
      assert(table.concat(vim.fn.readfile(log), '\n'):find('llmster-was-here', 1, true), 'stderr went to the log')
    end)
    llmster.setup({ cmd = { bin .. '/llmster' } })
    assert(checked, failure)
    llmster.start()
    assert(llmster.running())
  end)

  test('lost server context: a prompt offers a fresh context and resends', function()
    local buffer = new_chat('echo:one')
    reset_simulator()
    local offered
    select_with(function(items, options) offered = options.prompt return items[2], 2 end, function()
      type_input(buffer, 'echo:two')
      vim.cmd('LlmsterSend')
      wait(function() return offered ~= nil end, 'the fresh-context prompt')
      wait(function() return llmster.streaming(buffer) end, 'the resend')
      wait(function() return not llmster.streaming(buffer) end, 'the resent reply')
    end)
    local body = text(buffer)
    -- The lost send saved nothing and is not shown: the message went again, once, as a new one.
    assert(body:match('### Assistant\none\n\n### You\necho:two\n\n### Assistant\ntwo\n\n### You\n$'), body)
    assert(not body:find('[error', 1, true), 'the failed reply is replaced: ' .. body)
    local messages = saved(buffer).messages
    local texts = vim.tbl_map(function(m) return m.text end, messages)
    assert(vim.deep_equal(texts, { 'echo:one', 'one', 'echo:two', 'two' }), vim.inspect(texts))
    assert(messages[#messages].status == 'complete')
  end)

  test('lost server context: the prompt offers a recap of the earlier turns, as does :LlmsterFresh recap', function()
    local buffer = new_chat('echo:remember the heron')
    reset_simulator()
    local items
    local seen = notifications(function()
      select_with(function(offered) items = offered return offered[1], 1 end, function()
        type_input(buffer, 'recall')
        vim.cmd('LlmsterSend')
        wait(function() return items ~= nil end, 'the fresh-context prompt')
        wait(function() return llmster.streaming(buffer) end, 'the resend')
        wait(function() return not llmster.streaming(buffer) end, 'the resent reply')
      end)
    end)
    assert(#items == 3 and items[1]:find('recap', 1, true) and items[3] == 'Not now', vim.inspect(items))
    local input = last_chat_input()
    assert(input:find('[llmster recap:', 1, true) == 1 and input:find('User: echo:remember the heron', 1, true), input)
    assert(vim.tbl_filter(function(n) return n.message:find('recap of the earlier turns', 1, true) end, seen)[1], vim.inspect(seen))
    local messages = saved(buffer).messages
    assert(messages[#messages].status == 'complete' and not text(buffer):find('[error', 1, true), text(buffer))
    -- Declined, then asked for by command.
    reset_simulator()
    select_with(function() return nil, nil end, function()
      type_input(buffer, 'and again')
      vim.cmd('LlmsterSend')
      wait(function() return not llmster.streaming(buffer) end, 'the failure')
    end)
    vim.cmd('LlmsterFresh recap')
    wait(function() return not llmster.streaming(buffer) end, 'the resent reply')
    input = last_chat_input()
    assert(input:find('[llmster recap:', 1, true) == 1 and input:find('and again', 1, true), input)
    local texts = vim.tbl_map(function(m) return m.text end, saved(buffer).messages)
    assert(#texts == 6 and texts[3] == 'recall' and texts[5] == 'and again', vim.inspect(texts))
  end)

  test(':LlmsterFork starts a new conversation from a reply, marked in the library', function()
    local buffer = new_chat('echo:one')
    type_input(buffer, 'echo:two')
    vim.cmd('LlmsterSend')
    wait(function() return not llmster.streaming(buffer) end, 'the second reply')
    local original = llmster.chat(buffer).conversation
    vim.cmd('LlmsterFork 1')
    local fork = vim.api.nvim_get_current_buf()
    assert(fork ~= buffer and llmster.chat(fork).conversation ~= original)
    assert(text(fork):match('^### You\necho:one\n\n### Assistant\none\n\n### You\n$'), text(fork))
    type_input(fork, 'echo:three')
    vim.cmd('LlmsterSend')
    wait(function() return not llmster.streaming(fork) end, 'the fork\'s reply')
    assert(text(fork):find('### Assistant\nthree', 1, true), text(fork))
    local texts = vim.tbl_map(function(m) return m.text end, saved(buffer).messages)
    assert(vim.deep_equal(texts, { 'echo:one', 'one', 'echo:two', 'two' }), vim.inspect(texts))
    local list = require('llmster.library').list()
    assert(text(list):find('(fork of "echo:one" at reply 1)', 1, true), text(list))
    local seen = notifications(function() vim.cmd('LlmsterFork 9') end)
    assert(#seen == 1 and seen[1].message:find('repl', 1, true), vim.inspect(seen))
    vim.api.nvim_buf_delete(list, { force = true })
  end)

  test('an image goes with the next message, to a model that sees images', function()
    local image = vim.fn.tempname() .. '.png'
    local file = assert(io.open(image, 'wb'))
    file:write('\137PNG\r\n\26\n' .. string.rep('\0', 24))
    file:close()
    local buffer = new_chat()
    llmster.chat(buffer).model = 'acme/vision-7b'
    vim.cmd('LlmsterAdd ' .. vim.fn.fnameescape(image))
    assert(vim.deep_equal(llmster.context(buffer), { 'image ' .. vim.fn.fnamemodify(image, ':t') }), vim.inspect(llmster.context(buffer)))
    type_input(buffer, 'What is in it?')
    vim.cmd('LlmsterSend')
    wait(function() return not llmster.streaming(buffer) end, 'the reply')
    local body = text(buffer)
    assert(body:find('What is in it?\n\n[image: ' .. vim.fn.fnamemodify(image, ':t') .. ']\n\n### Assistant\nI can see 1 image in your message.', 1, true), body)
    assert(#llmster.context(buffer) == 0, 'sent once')
    local reopened = llmster.open(llmster.chat(buffer).conversation)
    assert(text(reopened):find('What is in it?\n\n[image: ' .. vim.fn.fnamemodify(image, ':t') .. ']\n\n### Assistant', 1, true),
      'the reopened chat lists the image: ' .. text(reopened))
    vim.api.nvim_set_current_buf(buffer)
    llmster.chat(buffer).model = 'acme/tiny-1b'
    vim.cmd('LlmsterImage ' .. vim.fn.fnameescape(image))
    type_input(buffer, 'And now?')
    local seen = notifications(function()
      vim.cmd('LlmsterSend')
      wait(function() return not llmster.streaming(buffer) end, 'the refusal')
    end)
    -- Refused, nothing saved: the message is back in the input area, the image still attached.
    assert(text(buffer):match('### You\n\nAnd now%?$') and not text(buffer):find('[error', 1, true), text(buffer))
    assert(#llmster.context(buffer) == 1, vim.inspect(llmster.context(buffer)))
    assert(#seen == 1 and seen[1].message:find('acme/tiny-1b', 1, true) and seen[1].message:find('input area', 1, true),
      vim.inspect(seen))
  end)

  test(':LlmsterPreview shows the request the next send would make, and sends nothing', function()
    local buffer = new_chat()
    llmster.set_system_prompt('Be brief.', buffer)
    local file = vim.fn.tempname() .. '.txt'
    vim.fn.writefile({ 'remember this' }, file)
    llmster.add_context(file, buffer)
    type_input(buffer, 'echo:first')
    vim.cmd('LlmsterPreview')
    local shown = text(vim.api.nvim_get_current_buf())
    assert(shown:match('^POST http://[^\n]+/api/v1/chat\n\n{'), shown)
    assert(shown:find('"system_prompt" : "Be brief."', 1, true) and shown:find('remember this', 1, true)
      and shown:find('echo:first', 1, true), shown)
    assert(vim.bo.filetype == 'json')
    vim.cmd('normal q')
    assert(vim.api.nvim_get_current_buf() == buffer)
    assert(llmster.chat(buffer).conversation == nil and #llmster.context(buffer) == 1, 'nothing sent, the context stays')
    vim.cmd('LlmsterSend')
    wait(function() return not llmster.streaming(buffer) end, 'the reply')
    type_input(buffer, 'echo:second')
    local request = llmster.preview(buffer)
    shown = text(request)
    assert(shown:find('"previous_response_id" : "', 1, true) and not shown:find('system_prompt', 1, true), shown)
    vim.api.nvim_buf_delete(request, { force = true })
  end)

  test('a declined fresh context leaves the message in the input area; :LlmsterFresh sends it later', function()
    local buffer = new_chat('echo:first')
    local file = vim.fn.tempname() .. '.txt'
    vim.fn.writefile({ 'the notes' }, file)
    vim.cmd('LlmsterAdd ' .. vim.fn.fnameescape(file))
    reset_simulator()
    local offered
    select_with(function(_, options) offered = options.prompt return nil, nil end, function()
      type_input(buffer, 'echo:second')
      vim.cmd('LlmsterSend')
      wait(function() return offered ~= nil end, 'the fresh-context prompt')
    end)
    assert(offered:find('input area', 1, true), offered)
    -- Nothing was saved: the exchange is not drawn, the message is back to send, its context still attached.
    assert(text(buffer) == '### You\necho:first\n\n### Assistant\nfirst\n\n### You\n\necho:second', text(buffer))
    assert(#llmster.context(buffer) == 1, vim.inspect(llmster.context(buffer)))
    local texts = vim.tbl_map(function(m) return m.text end, saved(buffer).messages)
    assert(vim.deep_equal(texts, { 'echo:first', 'first' }), vim.inspect(texts))
    vim.cmd('LlmsterFresh')
    wait(function() return not llmster.streaming(buffer) end, 'the resent reply')
    assert(text(buffer):match('### You\necho:second\n\n%[context: [^]]+%]\n\n### Assistant\nsecond\n\n### You\n$'), text(buffer))
    local messages = saved(buffer).messages
    texts = vim.tbl_map(function(m) return m.text end, messages)
    assert(vim.deep_equal(texts, { 'echo:first', 'first', 'echo:second', 'second' }), vim.inspect(texts))
    assert(type(messages[3].context) == 'table' and #messages[3].context == 1, vim.inspect(messages[3]))
    -- After a reply, :LlmsterFresh answers the last message again, in place.
    reset_simulator()
    vim.cmd('LlmsterFresh')
    wait(function() return not llmster.streaming(buffer) end, 'the answer asked again')
    assert(text(buffer):match('### Assistant\nsecond\n\n### You\n$'), text(buffer))
    assert(#saved(buffer).messages == 4, vim.inspect(saved(buffer).messages))
  end)

  test('a failed send puts the message back in a chat with replies', function()
    local buffer = new_chat('echo:first')
    type_input(buffer, '[[sim:status=500]] my precious prompt')
    local seen = notifications(function()
      vim.cmd('LlmsterSend')
      wait(function() return not llmster.streaming(buffer) end, 'the failure')
    end)
    assert(text(buffer) == '### You\necho:first\n\n### Assistant\nfirst\n\n### You\n\n[[sim:status=500]] my precious prompt', text(buffer))
    assert(#seen == 1 and seen[1].message:find('input area', 1, true), vim.inspect(seen))
    assert(#saved(buffer).messages == 2, vim.inspect(saved(buffer).messages))
    vim.api.nvim_buf_set_lines(buffer, -2, -1, false, { 'echo:works' })
    vim.cmd('LlmsterSend')
    wait(function() return not llmster.streaming(buffer) end, 'the reply')
    assert(text(buffer):match('### You\necho:works\n\n### Assistant\nworks\n\n### You\n$'), text(buffer))
  end)

  test('progress while the model loads, and a statusline', function()
    -- The load policy unloads acme/tiny-1b for acme/thinker-8b: the next tests need the server as it starts.
    local function reset_after(body) local ok, failure = pcall(body) reset_simulator() assert(ok, failure) end
    reset_after(function()
      vim.cmd('Llmster')
      local buffer = vim.api.nvim_get_current_buf()
      llmster.chat(buffer).model = 'acme/thinker-8b'
      type_input(buffer, '[[sim:slow-load]] echo:loaded')
      vim.cmd('LlmsterSend')
      local shown = {}
      wait(function()
        local now = llmster.indicator(buffer)
        if now then shown[now:gsub('%d+%%', 'N%%'):gsub('%d+ s$', 'T s')] = true end
        return not llmster.streaming(buffer)
      end, 'the reply')
      assert(shown['loading model N% · T s'], vim.inspect(shown))
      assert(llmster.indicator(buffer) == nil, 'the indicator goes when the reply ends')
      -- rpc's context meter, as the REPL's prompt shows it.
      local line = llmster.statusline()
      assert(line:match('^llmster: acme/thinker%-8b · ctx [%d.]+k?/[%d.]+k? %d+%%$'), line)
    end)
  end)

  test('a long prompt shows its progress ticking, and a cancel during it says the server finishes it', function()
    vim.cmd('Llmster')
    local buffer = vim.api.nvim_get_current_buf()
    type_input(buffer, '[[sim:prefill=90]] echo:a long prompt')
    vim.cmd('LlmsterSend')
    -- The first progress event after 0% comes 30 s in: a second is counted by the timer alone.
    wait(function() return (llmster.indicator(buffer) or ''):match('^processing prompt 0%% · [1-9]%d* s$') end,
      'the seconds moving on without events')
    assert(llmster.statusline():find('processing prompt 0% · ', 1, true), llmster.statusline())
    local seen = notifications(function()
      vim.cmd('LlmsterCancel')
      wait(function() return not llmster.streaming(buffer) end, 'the cancelled reply')
    end)
    local said = false
    for _, note in ipairs(seen) do said = said or note.message:find('LM Studio finishes processing it', 1, true) ~= nil end
    assert(said, vim.inspect(seen))
    assert(llmster.indicator(buffer) == nil, 'the progress goes with the reply')
  end)

  test('a message that would fill the context is offered a larger one, which sends it again', function()
    local buffer = new_chat('echo:one')
    local offered
    local select = vim.ui.select
    vim.ui.select = function(items, options, choose)
      offered = { items = items, prompt = options.prompt }
      choose(items[1], 1)
    end
    local ok, failure = pcall(function()
      type_input(buffer, 'echo:' .. string.rep('word ', 3040))
      vim.cmd('LlmsterSend')
      wait(function() return offered ~= nil and not llmster.streaming(buffer) and #saved(buffer).messages == 4 end,
        'the message sent again after the reload')
    end)
    vim.ui.select = select
    assert(ok, failure)
    assert(offered.prompt:match('would fill the context %(ctx .*/4k 9%d%%%)'), offered.prompt)
    assert(offered.items[1]:find('Reload acme/tiny-1b with a 8192-token context', 1, true), vim.inspect(offered.items))
    assert(saved(buffer).messages[4].status == 'complete', vim.inspect(saved(buffer).messages[4]))
    reset_simulator()
  end)

  test(':LlmsterImportLMStudio previews LM Studio\'s chats and imports them once', function()
    local directory = vim.fn.tempname() .. '/conversations'
    vim.fn.mkdir(directory, 'p')
    vim.fn.writefile({ '{"name":"From LM Studio","createdAt":1733000000000,"messages":['
      .. '{"versions":[{"role":"user","content":[{"type":"text","text":"hi there"},'
      .. '{"type":"file","fileIdentifier":"gone.png","name":"gone.png"}]}]},'
      .. '{"versions":[{"role":"assistant","type":"multiStep","steps":[{"type":"contentBlock",'
      .. '"content":[{"type":"text","text":"hello back"}]}]}]}]}' }, directory .. '/1733000000000.conversation.json')
    vim.fn.writefile({ '{"name": ' }, directory .. '/1733000000001.conversation.json')
    local confirm, asked = vim.fn.confirm, nil
    vim.fn.confirm = function(message) asked = message return 1 end
    local ok, result = pcall(function()
      local first = require('llmster.library').import_lmstudio(directory)
      local again = require('llmster.library').import_lmstudio(directory)
      return { first = first, again = again }
    end)
    vim.fn.confirm = confirm
    assert(ok, result)
    assert(result.first.imported == 1 and result.again.imported == 0 and result.again.alreadyThere == 1, vim.inspect(result))
    assert(asked:find('1 imported before', 1, true) and asked:find('cannot be read: 1733000000001.conversation.json', 1, true)
      and asked:find('image not found: gone.png', 1, true), asked)
    local titles = vim.tbl_map(function(c) return c.title end, llmster.request_sync('conversations/list', {}).conversations)
    assert(vim.tbl_contains(titles, 'From LM Studio'), vim.inspect(titles))
  end)

  test('tool calls show name, arguments, status and folded output', function()
    local buffer = new_chat('[[sim:tools]] echo:tools')
    local body = text(buffer)
    assert(body:find('⚙ search_docs({"query":"sse"}) · done', 1, true), body)
    -- An unknown tool's failure carries no arguments (streaming-events.md: only invalid_arguments has them).
    assert(body:find('⚙ open_browser(', 1, true) and body:find(') · failed: Cannot find tool open_browser', 1, true), body)
    local output
    for _, fold in ipairs(llmster.folds(buffer)) do
      if fold[3] == '▸ output of search_docs' then output = fold end
    end
    assert(output, vim.inspect(llmster.folds(buffer)))
    assert(vim.api.nvim_buf_get_lines(buffer, output[1] - 1, output[1], false)[1]:find('^Found 3 results'), 'the fold holds the output')
    assert(vim.fn.foldclosed(output[1]) == output[1], 'folded')
    local conversation = llmster.chat(buffer).conversation
    vim.cmd('bwipeout ' .. buffer)
    local reopened = text(llmster.open(conversation))
    assert(reopened:find('⚙ search_docs({"query":"sse"}) · done\nFound 3 results', 1, true), reopened)
    assert(reopened:find('Cannot find tool open_browser', 1, true), reopened)
  end)

  -- Reasoning, then search_docs, then "Let me look that up…", then the failed open_browser, then the answer.
  test('reasoning, tool calls and text keep the server\'s order, streamed and reopened', function()
    local buffer = new_chat('[[sim:tools]] café crème')
    local conversation = llmster.chat(buffer).conversation
    local function check(body, which)
      local reply = body:find('### Assistant', 1, true)
      local thought = body:find('café crème', reply, true)
      local at = { thought }
      for _, needle in ipairs({ '⚙ search_docs', 'Let me look that up in the docs first.', '⚙ open_browser', 'You said: *café crème*' }) do
        table.insert(at, body:find(needle, reply, true) or false)
      end
      for index = 2, #at do
        assert(at[index - 1] and at[index] and at[index - 1] < at[index], which .. ': part ' .. index .. ' out of order in\n' .. body)
      end
    end
    check(text(buffer), 'streamed')
    vim.cmd('bwipeout ' .. buffer)
    local reopened = llmster.open(conversation)
    check(text(reopened), 'reopened')
    local folds = llmster.folds(reopened)
    assert(folds[1] and folds[1][3]:find('^▸ Thought'), vim.inspect(folds))
    local first = vim.api.nvim_buf_get_lines(reopened, folds[1][1] - 1, folds[1][1], false)[1]
    assert(first:find('café crème', 1, true), 'the reasoning is folded: ' .. first)
  end)

  test('a reopened reply is drawn from the parts llmster cut', function()
    -- The offsets would put both calls first; the parts say where they came, and the buffer follows them.
    local calls = { { name = 'first', status = 'succeeded', answerOffset = 0, reasoningOffset = 0 },
      { name = 'second', status = 'failed', failureReason = 'no such tool', answerOffset = 0 } }
    local function reply(parts, seconds)
      return { id = 'r', role = 'assistant', status = 'complete', text = 'Voilà → \n\nça marche', reasoning = 'Pensée.\n\nPuis.',
        toolCalls = calls, parts = parts, reasoningSeconds = seconds,
        stats = { reasoning_output_tokens = 1, tokens_per_second = 1 } }
    end
    local client = require('llmster.client')
    local request_sync = client.request_sync
    local function open(messages)
      client.request_sync = function(method, params)
        if method ~= 'conversations/get' then return request_sync(method, params) end
        return { conversation = { id = 'crafted-' .. tostring(#messages), title = 'Crafted', displayTitle = 'Crafted' }, messages = messages }
      end
      local ok, buffer = pcall(llmster.open, 'crafted')
      client.request_sync = request_sync
      assert(ok, buffer)
      return buffer
    end
    local buffer = open({ { id = 'u', role = 'user', text = 'Question?' }, reply({
      { kind = 'reasoning', text = 'Pensée.', reasoningLabel = 'Reasoning' }, { kind = 'tool', index = 0 },
      { kind = 'reasoning', text = 'Puis.', reasoningLabel = 'Reasoning' },
      { kind = 'text', text = 'Voilà → \n\n' }, { kind = 'tool', index = 1 }, { kind = 'text', text = 'ça marche' },
    }, 2.25) })
    local body = text(buffer)
    assert(body:find('### Assistant\nPensée.\n\n⚙ first() · done\n\nPuis.\n\nVoilà → \n\n⚙ second() · failed: no such tool\n\nça marche', 1, true), body)
    local labels = vim.tbl_map(function(fold) return fold[3] end, llmster.folds(buffer))
    assert(vim.deep_equal(labels, { '▸ Reasoning', '▸ Reasoning' }), 'two parts share one time: ' .. vim.inspect(labels))
    vim.cmd('bwipeout ' .. buffer)
    buffer = open({ { id = 'u', role = 'user', text = 'Question?' },
      reply({ { kind = 'reasoning', text = 'Pensée.', seconds = 1020, reasoningLabel = 'Thought for 1,020.0 s' },
        { kind = 'text', text = 'Oui.' } }, 1020) })
    labels = vim.tbl_map(function(fold) return fold[3] end, llmster.folds(buffer))
    assert(vim.deep_equal(labels, { '▸ Thought for 1,020.0 s' }), 'rpc\'s label, as it sends it: ' .. vim.inspect(labels))
    vim.cmd('bwipeout ' .. buffer)
  end)

  test('a reopened transcript shows why a reply failed', function()
    local buffer = new_chat('echo:fine')
    type_input(buffer, '[[sim:error=internal_error]] echo:broken')
    vim.cmd('LlmsterSend')
    wait(function() return not llmster.streaming(buffer) end, 'the failed reply')
    local reply = saved(buffer).messages[4]
    assert(reply.status == 'error' and reply.error and reply.error ~= '', vim.inspect(reply))
    local _, notes = text(buffer):gsub('%[error', '')
    assert(notes == 1, 'the error is shown once: ' .. text(buffer))
    local conversation = llmster.chat(buffer).conversation
    vim.cmd('bwipeout ' .. buffer)
    local reopened = text(llmster.open(conversation))
    assert(reopened:find('[error: ' .. reply.error, 1, true), reopened)
  end)

  test(':checkhealth llmster reports the executable and the server', function()
    vim.cmd('checkhealth llmster')
    local report = text(vim.api.nvim_get_current_buf())
    assert(report:find('executable: ' .. bin .. '/llmster', 1, true), report)
    assert(report:find('LM Studio answers at ' .. url, 1, true), report)
    vim.cmd('bwipeout!')
  end)

  test('a failed first send puts the prompt back and leaves no conversation', function()
    vim.cmd('Llmster')
    local buffer = vim.api.nvim_get_current_buf()
    type_input(buffer, '[[sim:status=500]] my precious prompt')
    local seen = notifications(function()
      vim.cmd('LlmsterSend')
      wait(function() return not llmster.streaming(buffer) end, 'the failure')
    end)
    assert(text(buffer) == '### You\n\n[[sim:status=500]] my precious prompt', text(buffer))
    assert(#seen == 1 and seen[1].message:find('input area', 1, true), vim.inspect(seen))
    assert(llmster.chat(buffer).conversation == nil)
  end)

  test('search picks a conversation, or lists hits in a buffer', function()
    local buffer = new_chat('echo:zeppelin inventory')
    local conversation = llmster.chat(buffer).conversation
    select_with(function(items, options)
      assert(options.format_item(items[1]):find('zeppelin', 1, true), options.format_item(items[1]))
      return items[1], 1
    end, function() vim.cmd('LlmsterSearch zeppelin') end)
    assert(llmster.chat().conversation == conversation, 'the hit opened')
    vim.cmd('LlmsterSearch! zeppelin')
    local results = vim.api.nvim_get_current_buf()
    assert(text(results):find('zeppelin', 1, true), text(results))
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)
    assert(llmster.chat() and llmster.chat().conversation == conversation, 'enter opens the hit')
  end)

  test('rename, move to a nested folder, pin, draft and delete', function()
    local buffer = new_chat('echo:library chores')
    vim.cmd('LlmsterRename Chores')
    assert(vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buffer), ':t') == 'llmster: Chores', vim.api.nvim_buf_get_name(buffer))
    vim.cmd('LlmsterMove Work/Research')
    vim.cmd('LlmsterPin')
    local conversation = saved(buffer).conversation
    assert(conversation.title == 'Chores' and conversation.folderPath == 'Work/Research' and conversation.pinned == true,
      vim.inspect(conversation))
    type_input(buffer, 'half-typed thought')
    vim.cmd('enew')
    assert(llmster.request_sync('drafts/get', { conversationId = conversation.id }).text == 'half-typed thought')
    vim.cmd('bwipeout ' .. buffer)
    local reopened = llmster.open(conversation.id)
    assert(text(reopened):match('### You\nhalf%-typed thought$'), text(reopened))
    local list = llmster.list_chats()
    assert(vim.api.nvim_buf_get_lines(list, 0, 1, false)[1] == '* [Work/Research] Chores', text(list))
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    vim.cmd('LlmsterDelete!')
    assert(not pcall(llmster.request_sync, 'conversations/get', { id = conversation.id }), 'deleted')
    assert(not text(list):find('Chores', 1, true), 'the list is refreshed')
  end)

  test('the rename prompt starts from the title, the delete question names it', function()
    local buffer = new_chat('echo:prompt chores')
    vim.cmd('LlmsterRename Old title')
    local input, confirm = vim.ui.input, vim.fn.confirm
    local asked, question
    vim.ui.input = function(options, answer) asked = options answer(nil) end
    vim.fn.confirm = function(text) question = text return 2 end
    local ok, failure = pcall(function()
      vim.cmd('LlmsterRename')
      assert(asked and asked.default == 'Old title', 'the prompt starts with the title: ' .. vim.inspect(asked))
      vim.cmd('LlmsterDelete')
      assert(question and question:find('"Old title"', 1, true), 'the question names the conversation: ' .. tostring(question))
    end)
    vim.ui.input, vim.fn.confirm = input, confirm
    assert(ok, failure)
    assert(llmster.chat(buffer) and saved(buffer).conversation.title == 'Old title', 'kept: nothing was answered')
  end)

  test(':LlmsterAdd says what it added, with the chips llmster shows', function()
    local path = home .. '/chips.md'
    local lines = { '```lua', 'local words = "x"', '```' }
    for i = 1, 60 do table.insert(lines, 'line ' .. i .. ' of the notes') end
    vim.fn.writefile(lines, path)
    local chat = new_chat()
    local seen = notifications(function() vim.cmd('LlmsterAdd ' .. vim.fn.fnameescape(path)) end)
    local scratch = vim.api.nvim_create_buf(true, true)
    vim.api.nvim_buf_set_lines(scratch, 0, -1, false, { 'buffer words' })
    seen = vim.list_extend(seen, notifications(function() llmster.add_context(scratch, chat) end))
    assert(#seen == 2, vim.inspect(seen))
    type_input(chat, 'echo:chips')
    vim.cmd('LlmsterSend')
    wait(function() return not llmster.streaming(chat) end, 'the reply')
    local sent = saved(chat).messages[1].context
    assert(#sent == 2, vim.inspect(sent))
    for index, item in ipairs(sent) do
      assert(seen[index].level == vim.log.levels.INFO and seen[index].message:find(item.chip, 1, true),
        'names the item with its chip "' .. item.chip .. '": ' .. seen[index].message)
    end
    vim.api.nvim_buf_delete(scratch, { force = true })
  end)

  test('ask sends the selection as a fenced block with file name and filetype', function()
    new_chat()
    local path = home .. '/demo.lua'
    vim.fn.writefile({ 'local x = 1', 'return x' }, path)
    vim.cmd('edit ' .. path)
    vim.cmd('1,2LlmsterAsk echo:explain')
    local chat = vim.api.nvim_get_current_buf()
    wait(function() return not llmster.streaming(chat) end, 'the reply')
    local sent = saved(chat).messages[1].text
    assert(sent:find('echo:explain\n\n', 1, true), sent)
    assert(sent:find('demo.lua (lines 1-2):\n```lua\nlocal x = 1\nreturn x\n```', 1, true), sent)
  end)

  test('rewrite in place shows a diff to accept or reject', function()
    local inline = require('llmster.inline')
    llmster.setup({ rewrite_prompt = function() return 'echo:```lua\nlocal x = 2\nreturn x * 2\n```' end })
    local source = vim.api.nvim_create_buf(true, false)
    vim.api.nvim_buf_set_lines(source, 0, -1, false, { 'header', 'local x = 1', 'return x', 'footer' })
    vim.api.nvim_set_current_buf(source)
    vim.cmd('2,3LlmsterRewrite double it')
    wait(function() return inline.pending(source) and inline.pending(source).ready end, 'the rewrite')
    assert(text(source) == 'header\nlocal x = 2\nreturn x * 2\nfooter', text(source))
    local kept = llmster.request_sync('conversations/get', { id = inline.pending(source).conversation }).conversation
    assert(kept.folderPath == 'Rewrites', 'rewrites stay out of the top level: ' .. tostring(kept.folderPath))
    local marks = vim.api.nvim_buf_get_extmarks(source, vim.api.nvim_create_namespace('llmster_rewrite'), 0, -1, { details = true })
    local old
    for _, mark in ipairs(marks) do if mark[4].virt_lines then old = mark[4].virt_lines end end
    assert(old and old[1][1][1] == 'local x = 1' and old[2][1][1] == 'return x', 'the old lines are shown')
    local rejected = inline.pending(source).conversation
    vim.cmd('LlmsterReject')
    assert(text(source) == 'header\nlocal x = 1\nreturn x\nfooter', text(source))
    wait(function() return not pcall(llmster.request_sync, 'conversations/get', { id = rejected }) end,
      'the rejected rewrite to leave the library, as in Emacs')
    vim.cmd('2,3LlmsterRewrite double it')
    wait(function() return inline.pending(source) and inline.pending(source).ready end, 'the second rewrite')
    vim.api.nvim_feedkeys('ga', 'x', false)
    assert(not inline.pending(source), 'accepted')
    assert(text(source) == 'header\nlocal x = 2\nreturn x * 2\nfooter', text(source))
    assert(#vim.api.nvim_buf_get_extmarks(source, vim.api.nvim_create_namespace('llmster_rewrite'), 0, -1, {}) == 0)
    llmster.config.rewrite_prompt = nil
  end)

  test('a rewrite that never leaves (llmster cannot start) leaves nothing waiting', function()
    local inline = require('llmster.inline')
    llmster.setup({ rewrite_prompt = function() return 'echo:```lua\nlocal x = 2\n```' end })
    local source = vim.api.nvim_create_buf(true, false)
    vim.api.nvim_buf_set_lines(source, 0, -1, false, { 'header', 'local x = 1', 'footer' })
    vim.api.nvim_set_current_buf(source)
    local refused
    without_llmster(function() refused = pcall(inline.rewrite, 2, 2, 'double it') end)
    assert(not refused and not inline.pending(source), 'nothing waiting after the refusal')
    assert(#vim.api.nvim_buf_get_extmarks(source, vim.api.nvim_create_namespace('llmster_rewrite'), 0, -1, {}) == 0)
    vim.cmd('2LlmsterRewrite double it')
    wait(function() return inline.pending(source) and inline.pending(source).ready end, 'the rewrite once llmster runs')
    llmster.config.rewrite_prompt = nil
    assert(text(source) == 'header\nlocal x = 2\nfooter', text(source))
    vim.cmd('LlmsterAccept')
  end)

  test('a rejected rewrite leaves the buffer unmodified, and undo does not bring it back', function()
    local inline = require('llmster.inline')
    llmster.setup({ rewrite_prompt = function() return 'echo:```lua\nlocal x = 2\n```' end })
    local path = home .. '/unchanged.lua'
    vim.fn.writefile({ 'header', 'local x = 1', 'footer' }, path)
    vim.cmd('edit ' .. path)
    local source = vim.api.nvim_get_current_buf()
    vim.cmd('2LlmsterRewrite double it')
    wait(function() return inline.pending(source) and inline.pending(source).ready end, 'the rewrite')
    llmster.config.rewrite_prompt = nil
    assert(text(source) == 'header\nlocal x = 2\nfooter', text(source))
    -- Headless, nothing typed closes the undo block; the command typed to reject would.
    vim.cmd('let &l:undolevels = &l:undolevels')
    vim.cmd('LlmsterReject')
    vim.cmd('let &l:undolevels = &l:undolevels')
    assert(text(source) == 'header\nlocal x = 1\nfooter', text(source))
    assert(vim.bo[source].modified == false, 'unmodified, as before the rewrite')
    vim.cmd('silent! normal! u')
    assert(text(source) == 'header\nlocal x = 1\nfooter', 'undo does not apply the rejected rewrite: ' .. text(source))
    vim.cmd('bwipeout! ' .. source)
  end)

  test('context: files and buffers go with the next message', function()
    local path = home .. '/notes.txt'
    vim.fn.writefile({ 'attached words' }, path)
    local chat = new_chat()
    vim.cmd('LlmsterAdd ' .. path)
    assert(vim.deep_equal(llmster.context(chat), { vim.fn.fnamemodify(path, ':~:.') }), vim.inspect(llmster.context(chat)))
    type_input(chat, 'echo:with context')
    vim.cmd('LlmsterSend')
    wait(function() return not llmster.streaming(chat) end, 'the reply')
    local first = saved(chat).messages[1]
    assert(first.text == 'echo:with context', 'the message is what was typed: ' .. first.text)
    assert(first.context[1].name == 'notes.txt' and first.context[1].text:find('attached words', 1, true), vim.inspect(first.context))
    assert(vim.tbl_contains(vim.api.nvim_buf_get_lines(chat, 0, -1, false), '[context: notes.txt]'))
    assert(saved(chat).conversation.title == 'echo:with context', 'the title is what was typed: ' .. saved(chat).conversation.title)
    assert(#llmster.context(chat) == 0, 'sent once')
    type_input(chat, '/file ' .. path)
    type_input(chat, 'echo:again')
    vim.cmd('LlmsterSend')
    wait(function() return not llmster.streaming(chat) end, 'the second reply')
    local messages = saved(chat).messages
    assert(messages[3].text == 'echo:again' and messages[3].context[1].text:find('attached words', 1, true), vim.inspect(messages[3]))
  end)

  test('regenerate, edit-last and settings work from the chat buffer', function()
    local buffer = new_chat('echo:original')
    vim.cmd('LlmsterRegenerate')
    wait(function() return not llmster.streaming(buffer) end, 'the regenerated reply')
    assert(text(buffer):match('^### You\necho:original\n\n### Assistant\noriginal\n\n### You\n$'), text(buffer))
    local conversation = llmster.chat(buffer).conversation
    local alternatives = llmster.request_sync('conversations/alternatives', { conversationId = conversation })
    assert(#alternatives.alternatives == 2, 'the old answer is an alternative')
    vim.cmd('LlmsterEditLast')
    assert(text(buffer):match('### You\necho:original$'), text(buffer))
    vim.api.nvim_buf_set_lines(buffer, -2, -1, false, { 'echo:edited' })
    vim.cmd('LlmsterSend')
    wait(function() return not llmster.streaming(buffer) end, 'the edited reply')
    assert(text(buffer):match('^### You\necho:edited\n\n### Assistant\nedited\n\n### You\n$'), text(buffer))
    local messages = saved(buffer).messages
    assert(#messages == 2 and messages[1].text == 'echo:edited', vim.inspect(messages))
    vim.cmd('LlmsterSystem Answer in French.')
    assert(saved(buffer).conversation.systemPrompt == 'Answer in French.')
    assert(llmster.chat(buffer).fresh_next, 'the next send starts a fresh context')
  end)

  test('reasoning effort goes with the first send, then through setSettings', function()
    vim.cmd('Llmster')
    local buffer = vim.api.nvim_get_current_buf()
    llmster.chat(buffer).model = 'acme/thinker-8b'
    vim.cmd('LlmsterReasoning low')
    type_input(buffer, 'echo:think a little')
    vim.cmd('LlmsterSend')
    wait(function() return not llmster.streaming(buffer) end, 'the reply')
    assert(saved(buffer).conversation.settings.reasoning == 'low', vim.inspect(saved(buffer).conversation.settings))
    vim.cmd('LlmsterReasoning high')
    assert(saved(buffer).conversation.settings.reasoning == 'high', vim.inspect(saved(buffer).conversation.settings))
    local seen = notifications(function() vim.cmd('LlmsterReasoning loud') end)
    assert(#seen == 1 and seen[1].message:find('off, low, medium, high', 1, true), vim.inspect(seen))
  end)

  test('the command palette lists the actions', function()
    new_chat()
    local names
    select_with(function(items, options)
      names = vim.tbl_map(options.format_item, items)
      for _, item in ipairs(items) do if item[1] == 'Library' then return item, 1 end end
    end, function() vim.cmd('LlmsterActions') end)
    assert(vim.tbl_contains(names, 'Regenerate the last answer') and vim.tbl_contains(names, 'Search the library'), vim.inspect(names))
    assert(vim.b.llmster_library, 'the library opened')
  end)

  test('default chat keymaps exist and can be turned off', function()
    local buffer = new_chat()
    local function mapped(mode, lhs)
      for _, map in ipairs(vim.api.nvim_buf_get_keymap(buffer, mode)) do
        if map.lhs == lhs then return true end
      end
      return false
    end
    assert(mapped('n', '<CR>') and mapped('i', '<C-S>') and mapped('n', '<C-C>'), 'send and cancel keys')
    llmster.setup({ keymaps = { send = false } })
    buffer = new_chat()
    assert(not mapped('n', '<CR>'), 'send key off')
    llmster.setup({ keymaps = { send = { n = '<CR>', i = '<C-s>' } } })
  end)

  local function conversation_of(buffer)
    return llmster.request_sync('conversations/get', { id = llmster.chat(buffer).conversation }).conversation
  end
  local function send_and_wait(buffer, line)
    type_input(buffer, line)
    llmster.send_chat(buffer)
    wait(function() return not llmster.streaming(buffer) end, 'the reply')
  end

  test('a preset\'s template fills the next message', function()
    llmster.start()
    local dir = vim.env.XDG_CONFIG_HOME .. '/llmster'
    vim.fn.mkdir(dir, 'p')
    vim.fn.writefile({ 'preset.polite.template = {{input}}, please' }, dir .. '/config')
    local buffer = new_chat()
    llmster.apply_preset('polite', buffer)
    send_and_wait(buffer, 'echo:the summary')
    send_and_wait(buffer, 'echo:again')
    local messages = saved(buffer).messages
    assert(messages[1].text == 'echo:the summary, please', 'the engine filled the template: ' .. messages[1].text)
    assert(messages[3].text == 'echo:again', 'for one message only: ' .. messages[3].text)
  end)

  test('presets start a new chat and apply to the current one', function()
    -- llmster rpc runs before the presets are written: it reads the changed file again.
    llmster.start()
    local dir = vim.env.XDG_CONFIG_HOME .. '/llmster'
    vim.fn.mkdir(dir, 'p')
    vim.fn.writefile({ 'preset.french.system = Answer in French.', 'preset.french.temperature = 0.3',
      'preset.terse.system = Be terse.', 'preset.terse.model = acme/thinker-8b' }, dir .. '/config')
    local original, shown = vim.ui.select, nil
    vim.ui.select = function(items, options, choose)
      shown = vim.tbl_map(options.format_item, items)
      choose(items[1])
    end
    vim.cmd('LlmsterNewWithPreset')
    vim.ui.select = original
    -- The REPL's /presets lines, from presets/list.
    assert(vim.deep_equal(shown, { 'french  temperature 0.3 · "Answer in French."', 'terse  model acme/thinker-8b · "Be terse."' }),
      vim.inspect(shown))
    local buffer = vim.api.nvim_get_current_buf()
    send_and_wait(buffer, 'echo:bonjour')
    local conversation = conversation_of(buffer)
    assert(conversation.systemPrompt == 'Answer in French.', vim.inspect(conversation))
    assert(conversation.settings.temperature == 0.3, vim.inspect(conversation.settings))
    local said = notifications(function() vim.cmd('LlmsterPreset terse') end)
    assert(#said == 1 and said[1].message:find('preset terse applied; ', 1, true), 'one message, no Enter to press: ' .. vim.inspect(said))
    assert(conversation_of(buffer).systemPrompt == 'Be terse.')
    assert(llmster.chat(buffer).model == 'acme/thinker-8b', 'the preset\'s model is the chat\'s from the next message on')
    assert(llmster.chat(buffer).fresh_next, 'a new prompt after the first reply asks for a fresh server context')
    assert(not pcall(llmster.apply_preset, 'nosuch', buffer), 'an unknown preset is refused')
    vim.fn.writefile({ 'preset.french.system = Answer in French.', 'preset.french.temperature = 0.3',
      'preset.terse.system = Be terse.', 'preset.terse.model = acme/thinker-8b', 'preset.zz.system = Last.' }, dir .. '/config')
    assert(vim.deep_equal(llmster.reload_config(), { 'french', 'terse', 'zz' }), ':LlmsterReload reads the config again')
    llmster.setup({ default_preset = 'terse' })
    local other = llmster.open()
    llmster.config.default_preset = nil
    local before = #llmster.request_sync('conversations/list', {}).conversations
    -- A first send that fails leaves no Untitled conversation; the next try has the preset again.
    send_and_wait(other, '[[sim:status=500]] hi')
    wait(function() return #llmster.request_sync('conversations/list', {}).conversations == before end, 'no conversation left')
    vim.api.nvim_buf_set_lines(other, 1, -1, false, {})
    send_and_wait(other, 'echo:hi')
    assert(conversation_of(other).systemPrompt == 'Be terse.')
    assert(#llmster.request_sync('conversations/list', {}).conversations == before + 1, 'one conversation for the chat')
  end)

  test('choosing an alternative redraws the chat', function()
    local buffer = llmster.open()
    -- A model without reasoning, whatever an earlier test left loaded: the transcript below has no reasoning fold.
    llmster.chat(buffer).model = 'acme/tiny-1b'
    send_and_wait(buffer, 'echo:one')
    assert(not pcall(llmster.pick_alternative, buffer), 'no alternatives before a regenerate or edit')
    llmster.regenerate(buffer)
    wait(function() return not llmster.streaming(buffer) end, 'the new answer')
    type_input(buffer, 'unsent')
    local shown
    select_with(function(items, options)
      shown = {}
      for index, item in ipairs(items) do shown[index] = options.format_item(item) end
      return items[1], 1
    end, function() vim.cmd('LlmsterAlternatives') end)
    -- vim.ui.select numbers the lines: the picker shows "1:   one", "2: * one".
    assert(vim.deep_equal(shown, { '  one', '* one' }), vim.inspect(shown))
    local chat = llmster.chat(buffer)
    assert(llmster.request_sync('conversations/alternatives', { conversationId = chat.conversation }).current == 0)
    assert(text(buffer) == '### You\necho:one\n\n### Assistant\none\n\n### You\n\nunsent', vim.inspect(text(buffer)))
    -- After an edit, the versions of the message are offered; choosing the first shows its answer.
    vim.api.nvim_buf_set_lines(buffer, -2, -1, false, {})
    llmster.edit_last(buffer)
    local last = vim.api.nvim_buf_line_count(buffer)
    vim.api.nvim_buf_set_lines(buffer, last - 1, last, false, { 'echo:deux' })
    llmster.send_chat(buffer)
    wait(function() return not llmster.streaming(buffer) end, 'the edited reply')
    select_with(function(items) return items[1], 1 end, function() llmster.pick_alternative(buffer) end)
    assert(text(buffer):match('^### You\necho:one\n\n### Assistant\none\n\n### You\n'), vim.inspect(text(buffer)))
    send_and_wait(buffer, 'echo:trois')
    local texts = vim.tbl_map(function(m) return m.text end,
      llmster.request_sync('conversations/get', { id = chat.conversation }).messages)
    assert(vim.deep_equal(texts, { 'echo:one', 'one', 'echo:trois', 'trois' }), vim.inspect(texts))
  end)

  test('the buffer name follows a rename in the library after the next reply', function()
    local buffer = llmster.open()
    send_and_wait(buffer, 'echo:first title')
    wait(function() return vim.api.nvim_buf_get_name(buffer):find('first title', 1, true) ~= nil end, 'the first title')
    llmster.request_sync('conversations/rename', { id = llmster.chat(buffer).conversation, title = 'Renamed elsewhere' })
    send_and_wait(buffer, 'echo:again')
    wait(function() return vim.api.nvim_buf_get_name(buffer):find('Renamed elsewhere', 1, true) ~= nil end, 'the new title')
  end)

  test('a model chosen before the first message follows the load policy', function()
    local buffer = llmster.open()
    local seen = notifications(function()
      select_with(function(items)
        for _, item in ipairs(items) do if item.key == 'acme/thinker-8b' then return item, 1 end end
      end, function() vim.cmd('LlmsterModels') end)
      wait(function()
        local loaded = {}
        for _, model in ipairs(llmster.models()) do loaded[model.key] = model.loaded == true end
        return loaded['acme/thinker-8b'] and not loaded['acme/tiny-1b']
      end, 'thinker loaded in place of tiny, as the REPL\'s /model does')
    end)
    assert(#seen > 0, 'the choice is reported')
    send_and_wait(buffer, 'echo:on thinker')
    assert(conversation_of(buffer).modelKey == 'acme/thinker-8b', vim.inspect(conversation_of(buffer)))
    reset_simulator()
  end)

  test('edit-last asks before replacing typed text, shows it is editing, and cancel leaves', function()
    local buffer = llmster.open()
    send_and_wait(buffer, 'echo:one')
    type_input(buffer, 'half typed')
    local before, asked = text(buffer), nil
    select_with(function(_, options) asked = options.prompt return nil, nil end, function() vim.cmd('LlmsterEditLast') end)
    assert(asked and text(buffer) == before and not llmster.editing(buffer), 'declined: the typed text stays')
    select_with(function(items) return items[1], 1 end, function() vim.cmd('LlmsterEditLast') end)
    assert(text(buffer):match('### You\necho:one$'), text(buffer))
    local marks = vim.api.nvim_buf_get_extmarks(buffer, vim.api.nvim_create_namespace('llmster_edit'), 0, -1, { details = true })
    assert(#marks == 1 and marks[1][4].virt_text[1][1]:find('editing the last message', 1, true), vim.inspect(marks))
    vim.cmd('LlmsterCancel')
    assert(text(buffer) == before and not llmster.editing(buffer), 'left: ' .. text(buffer))
    assert(#vim.api.nvim_buf_get_extmarks(buffer, vim.api.nvim_create_namespace('llmster_edit'), 0, -1, {}) == 0)
    llmster.send_chat(buffer)
    wait(function() return not llmster.streaming(buffer) end, 'the reply')
    assert(#saved(buffer).messages == 4, 'a new message, not an edit')
    -- An edit that is saved gives back the input it set aside, before what was typed as its reply streamed.
    type_input(buffer, 'second draft')
    select_with(function(items) return items[1], 1 end, function() vim.cmd('LlmsterEditLast') end)
    local rows = vim.api.nvim_buf_get_lines(buffer, 0, -1, false)
    local header = #rows
    while rows[header] ~= '### You' do header = header - 1 end
    vim.api.nvim_buf_set_lines(buffer, header, -1, false, { 'echo:edited' })
    llmster.send_chat(buffer)
    type_input(buffer, 'typed meanwhile')
    wait(function() return not llmster.streaming(buffer) end, 'the reply to the edit')
    assert(text(buffer):find('### You\necho:edited\n\n### Assistant\nedited', 1, true), text(buffer))
    assert(text(buffer):find('### You\n\nsecond draft\n\ntyped meanwhile$'), text(buffer))
    assert(not llmster.editing(buffer) and #saved(buffer).messages == 4, 'the edit replaced the last exchange')
  end)

  test('deleting an open conversation closes its chat; deleted elsewhere, the next send says so', function()
    local buffer = llmster.open()
    send_and_wait(buffer, 'echo:to delete')
    vim.api.nvim_set_current_buf(buffer)
    vim.cmd('LlmsterDelete!')
    assert(not vim.api.nvim_buf_is_valid(buffer), 'the chat buffer is wiped')
    local other = llmster.open()
    send_and_wait(other, 'echo:deleted elsewhere')
    llmster.request_sync('conversations/delete', { id = llmster.chat(other).conversation })
    local seen = notifications(function() send_and_wait(other, 'echo:anyone?') end)
    assert(text(other):find('[error: this conversation is no longer in the library (deleted?); :Llmster starts a new chat]', 1, true), text(other))
    assert(not text(other):find('/chats', 1, true) and #seen == 1, vim.inspect(seen))
  end)

  test(':help llmster works from the shipped doc/tags, which are up to date', function()
    local doc = vim.api.nvim_get_runtime_file('doc/llmster.txt', false)[1]
    local shipped = vim.fn.fnamemodify(doc, ':h') .. '/tags'
    assert(vim.fn.filereadable(shipped) == 1, 'doc/tags ships with the plugin')
    vim.cmd('help :LlmsterReload')
    assert(vim.fn.expand('%:t') == 'llmster.txt', vim.fn.expand('%'))
    vim.cmd('helpclose')
    local fresh = vim.fn.tempname()
    vim.fn.mkdir(fresh, 'p')
    vim.fn.writefile(vim.fn.readfile(doc), fresh .. '/llmster.txt')
    vim.cmd('helptags ' .. fresh)
    assert(vim.deep_equal(vim.fn.readfile(fresh .. '/tags'), vim.fn.readfile(shipped)),
      'doc/tags is stale: run nvim --headless -c "helptags contrib/nvim/doc" -c q')
    vim.fn.delete(fresh, 'rf')
  end)

  test('each module the help lists loads on its own in a fresh Neovim', function()
    local root = vim.fn.fnamemodify(vim.api.nvim_get_runtime_file('lua/llmster/init.lua', false)[1], ':h:h:h')
    local doc = table.concat(vim.fn.readfile(root .. '/doc/llmster.txt'), '\n')
    local section = doc:match('%*llmster%-modules%*(.-)\n\n')
    local modules = {}
    for name in section:gmatch('\n  (llmster[%w.]*)') do table.insert(modules, name) end
    assert(#modules >= 10, vim.inspect(modules))
    for _, name in ipairs(modules) do
      assert(vim.fn.filereadable(root .. '/lua/' .. name:gsub('%.', '/') .. '.lua') == 1
        or vim.fn.filereadable(root .. '/lua/' .. name:gsub('%.', '/') .. '/init.lua') == 1, name .. ' is in the help but not in lua/')
      local output = vim.fn.system({ 'nvim', '--headless', '-u', 'NONE', '-i', 'NONE', '--cmd', 'set rtp^=' .. root,
        '-c', 'lua local ok, e = pcall(require, "' .. name .. '") if not ok then io.stderr:write(e) vim.cmd("cquit") end', '-c', 'qall!' })
      assert(vim.v.shell_error == 0, name .. ': ' .. output)
    end
  end)

  test('undo after a reply takes the exchange away in one step', function()
    local buffer = llmster.open()
    type_input(buffer, 'echo:one two three')
    local typed = text(buffer)
    vim.cmd('let &undolevels = &undolevels')
    llmster.send_chat(buffer)
    wait(function() return not llmster.streaming(buffer) end, 'the reply')
    vim.cmd('let &undolevels = &undolevels')
    vim.cmd('silent undo')
    assert(text(buffer) == typed, text(buffer))
    assert(#saved(buffer).messages == 2, 'the library keeps the exchange')
  end)

  test('the cursor stays in the input after regenerate', function()
    local buffer = llmster.open()
    send_and_wait(buffer, 'echo:one')
    vim.api.nvim_win_set_cursor(0, { vim.api.nvim_buf_line_count(buffer), 0 })
    llmster.regenerate(buffer)
    wait(function() return not llmster.streaming(buffer) end, 'the new answer')
    local row = vim.api.nvim_win_get_cursor(0)[1]
    assert(row == vim.api.nvim_buf_line_count(buffer) and row - 1 > (vim.fn.search('^### You$', 'bnW') - 1), 'in the input: ' .. row)
    vim.api.nvim_buf_set_lines(buffer, row - 1, row, false, { 'echo:two' })
    llmster.send_chat(buffer)
    wait(function() return not llmster.streaming(buffer) end, 'the reply to what was typed there')
    local messages = saved(buffer).messages
    assert(messages[#messages - 1].text == 'echo:two' and messages[#messages].text == 'two', vim.inspect(messages))
    assert(text(buffer):match('### You\necho:two\n\n### Assistant\n.*two\n\n### You\n$'), text(buffer))
  end)

  test('regenerate of a long reply answers again in its place, with no error', function()
    -- The simulator's default reply (a list and a code block) is longer than the three lines regenerate draws.
    local buffer = new_chat('tell me')
    local before = text(buffer)
    assert(select(2, before:gsub('\n', '')) > 8, 'a long reply: ' .. before)
    local seen = notifications(function()
      vim.cmd('LlmsterRegenerate')
      wait(function() return not llmster.streaming(buffer) end, 'the answer asked again')
    end)
    local errors = vim.tbl_filter(function(n) return n.level == vim.log.levels.ERROR end, seen)
    assert(#errors == 0, vim.inspect(errors))
    local messages = saved(buffer).messages
    assert(#messages == 2, vim.inspect(messages))
    local alternatives = llmster.request_sync('conversations/alternatives', { conversationId = llmster.chat(buffer).conversation })
    assert(#alternatives.alternatives == 2, 'the answer was asked again: ' .. vim.inspect(alternatives))
    assert(text(buffer) == before, 'the new answer (the same text) stands where the old one stood: ' .. text(buffer))
  end)

  test('drafts are saved when Neovim exits', function()
    local buffer = llmster.open()
    send_and_wait(buffer, 'echo:hello')
    type_input(buffer, 'typed before :qa')
    vim.api.nvim_exec_autocmds('VimLeavePre', { group = 'llmster_drafts' })
    local id = llmster.chat(buffer).conversation
    assert(llmster.request_sync('drafts/get', { conversationId = id }).text == 'typed before :qa')
  end)

  test('an input emptied of the draft it showed keeps a newer draft saved elsewhere', function()
    local buffer = llmster.open()
    send_and_wait(buffer, 'echo:hello')
    type_input(buffer, 'saved here P5')
    vim.api.nvim_exec_autocmds('VimLeavePre', { group = 'llmster_drafts' })
    local id = llmster.chat(buffer).conversation
    assert(llmster.request_sync('drafts/get', { conversationId = id }).text == 'saved here P5')
    vim.api.nvim_buf_set_lines(buffer, -2, -1, false, { '' })
    llmster.request_sync('drafts/set', { conversationId = id, text = 'newer draft P6' })
    vim.api.nvim_exec_autocmds('VimLeavePre', { group = 'llmster_drafts' })
    local draft = llmster.request_sync('drafts/get', { conversationId = id }).text
    assert(draft == 'newer draft P6', 'the draft saved elsewhere stays: ' .. vim.inspect(draft))
  end)

  test('a draft keeps its first line\'s indentation and its lines, only the blank end goes', function()
    local buffer = new_chat('echo:hello')
    local id = llmster.chat(buffer).conversation
    type_input(buffer, '    indented first line')
    type_input(buffer, '/second line')
    type_input(buffer, '  ')
    type_input(buffer, '')
    vim.cmd('enew')
    local draft = llmster.request_sync('drafts/get', { conversationId = id }).text
    assert(draft == '    indented first line\n/second line', vim.inspect(draft))
    vim.cmd('bwipeout! ' .. buffer)
    local reopened = llmster.open(id)
    assert(text(reopened):match('### You\n    indented first line\n/second line$'), text(reopened))
    -- Whitespace alone is no draft.
    vim.api.nvim_buf_set_lines(reopened, -3, -1, false, { '   ', '' })
    vim.cmd('enew')
    draft = llmster.request_sync('drafts/get', { conversationId = id }).text
    assert(draft == '', vim.inspect(draft))
  end)

  test('a rewrite without a final newline keeps the lines apart', function()
    local inline = require('llmster.inline')
    llmster.setup({ rewrite_prompt = function() return 'echo:a = 10' end })
    local source = vim.api.nvim_create_buf(true, false)
    vim.api.nvim_buf_set_lines(source, 0, -1, false, { 'a = 1', 'b = 2' })
    vim.api.nvim_set_current_buf(source)
    vim.cmd('1LlmsterRewrite ten')
    wait(function() return inline.pending(source) and inline.pending(source).ready end, 'the rewrite')
    inline.accept(source)
    llmster.config.rewrite_prompt = nil
    assert(text(source) == 'a = 10\nb = 2', text(source))
  end)

  test('export, import and backup from Neovim', function()
    local library = require('llmster.library')
    local buffer = llmster.open()
    send_and_wait(buffer, 'echo:take me along')
    local file, backup = home .. '/chat.llmster', home .. '/all.llmster-backup'
    vim.api.nvim_set_current_buf(buffer)
    vim.cmd('LlmsterExport ' .. file)
    assert(vim.fn.filereadable(file) == 1)
    -- The library still holds the exported conversation: opening it is offered, or a copy.
    local opened
    select_with(function(items) return items[1], 1 end, function() library.import(file, function(b) opened = b end) end)
    assert(opened == buffer, 'importing a file of this library offers the conversation it holds')
    local imported
    select_with(function(items) return items[2], 2 end, function() library.import(file, function(b) imported = b end) end)
    assert(imported and imported ~= buffer and text(imported):find('### Assistant\n.*take me along'), tostring(imported))
    local before = #llmster.request_sync('conversations/list', {}).conversations
    local answer = library.backup(backup)
    assert(answer.statistics.conversations == before and vim.fn.filereadable(backup) == 1, vim.inspect(answer))
  end)

  test('integrations are turned on and off for a chat', function()
    with_config({ 'integration.docs = https://docs.example.com/mcp' }, function()
      local buffer = llmster.open()
      send_and_wait(buffer, 'echo:plain')
      vim.api.nvim_set_current_buf(buffer)
      vim.cmd('LlmsterIntegrations docs')
      assert(vim.deep_equal(conversation_of(buffer).integrations, { 'docs' }), vim.inspect(conversation_of(buffer).integrations))
      vim.cmd('LlmsterIntegrations')
      local now = conversation_of(buffer).integrations
      assert(now == nil or now == vim.NIL or #now == 0, vim.inspect(now))
      assert(not pcall(llmster.set_integrations, { 'nope' }, buffer), 'an unknown name is refused')
    end)
  end)

  test('control characters in model output are shown as visible escapes, never as raw bytes', function()
    local function check(body, which)
      assert(not body:find('[%z\1-\8\11-\31\127]') and not body:find('\194[\128-\159]'), which .. ': ' .. vim.inspect(body))
      assert(body:find('Danger zone: ^[[2J cleared? ^[]52;c;cHduZWQ=^G clipboard?', 1, true), which .. ': ' .. body)
      assert(body:find('and C1 ^[[31mred^[[0m.', 1, true), which .. ': ' .. body)
    end
    local buffer = new_chat('[[sim:escape]] echo:look')
    check(text(buffer), 'streamed')
    local conversation = llmster.chat(buffer).conversation
    vim.cmd('bwipeout ' .. buffer)
    check(text(llmster.open(conversation)), 'reopened')
  end)

  test('a refused send puts text, images and context items back, drawn as not sent', function()
    local image = vim.fn.tempname() .. '.png'
    local file = assert(io.open(image, 'wb'))
    file:write('\137PNG\r\n\26\n' .. string.rep('\0', 24))
    file:close()
    local notes = vim.fn.tempname() .. '.txt'
    vim.fn.writefile({ 'the notes' }, notes)
    local buffer = new_chat('echo:first')
    llmster.chat(buffer).model = 'acme/tiny-1b'
    vim.cmd('LlmsterAdd ' .. vim.fn.fnameescape(notes))
    vim.cmd('LlmsterImage ' .. vim.fn.fnameescape(image))
    type_input(buffer, 'echo:img')
    local before, attached = text(buffer), llmster.context(buffer)
    assert(#attached == 2, vim.inspect(attached))
    notifications(function()
      vim.cmd('LlmsterSend')
      wait(function() return not llmster.streaming(buffer) end, 'the refusal')
    end)
    assert(text(buffer) == before, 'nothing drawn as sent: ' .. text(buffer))
    assert(vim.deep_equal(llmster.context(buffer), attached), vim.inspect(llmster.context(buffer)))
    local marks = vim.api.nvim_buf_get_extmarks(buffer, vim.api.nvim_create_namespace('llmster_context'), 0, -1, { details = true })
    local header = marks[1] and marks[1][4].virt_text[1][1] or ''
    assert(#marks == 1 and header:find(attached[1], 1, true) and header:find(attached[2], 1, true), vim.inspect(marks))
    assert(#saved(buffer).messages == 2, vim.inspect(saved(buffer).messages))
    -- A regenerate answers the last message the library holds, drawn where it is.
    vim.cmd('LlmsterRegenerate')
    wait(function() return not llmster.streaming(buffer) end, 'the regenerated reply')
    assert(last_chat_input() == 'echo:first', last_chat_input())
    assert(text(buffer):match('^### You\necho:first\n\n### Assistant\nfirst\n\n### You\n\necho:img$'), text(buffer))
    assert(#llmster.context(buffer) == 2, vim.inspect(llmster.context(buffer)))
    -- The same as a chat's first message: nothing is left in the library.
    local first = new_chat()
    llmster.chat(first).model = 'acme/tiny-1b'
    vim.cmd('LlmsterAdd ' .. vim.fn.fnameescape(notes))
    vim.cmd('LlmsterImage ' .. vim.fn.fnameescape(image))
    type_input(first, 'echo:img')
    before = text(first)
    notifications(function()
      vim.cmd('LlmsterSend')
      wait(function() return not llmster.streaming(first) end, 'the refusal')
    end)
    assert(text(first) == before and #llmster.context(first) == 2 and llmster.chat(first).conversation == nil,
      text(first) .. vim.inspect(llmster.context(first)))
  end)

  test('a send, a regenerate or an edit that never leaves (llmster cannot start) ends as a refused one of its kind', function()
    local buffer = new_chat('echo:first')
    local file = vim.fn.tempname() .. '.txt'
    vim.fn.writefile({ 'remember this' }, file)
    local before = text(buffer)
    local regenerated, edited, sent, after_retry, after_edit, after_send, attached, editing
    without_llmster(function()
      regenerated = pcall(llmster.regenerate, buffer)
      -- A retry fails before the answer it replaces goes from view.
      after_retry = text(buffer)
      -- So does an edit: its text stays in the input area, still editing the last message, and what was attached
      -- to it waits for the next send.
      llmster.edit_last(buffer)
      vim.api.nvim_buf_set_lines(buffer, -2, -1, false, { 'echo:edited' })
      llmster.add_context(file, buffer)
      edited = pcall(llmster.send_chat, buffer)
      after_edit = text(buffer)
      attached = #llmster.context(buffer)
      editing = llmster.editing(buffer)
      llmster.cancel(buffer)
      type_input(buffer, 'echo:second')
      sent = pcall(llmster.send_chat, buffer)
      after_send = text(buffer)
      -- Sent by the command, it says so once: why, and that the message is back.
      local seen = notifications(function() vim.cmd('LlmsterSend') end)
      local errors = vim.tbl_filter(function(n) return n.level == vim.log.levels.ERROR end, seen)
      assert(#errors == 1 and errors[1].message:find('cannot start no-such-llmster', 1, true)
        and errors[1].message:find('your message is back in the input area', 1, true), vim.inspect(seen))
    end)
    assert(not regenerated and not edited and not sent, 'all refused')
    assert(after_retry == before, after_retry)
    assert(attached == 1, 'the edit\'s context item waits: ' .. vim.inspect(llmster.context(buffer)))
    assert(editing and after_edit == before .. 'echo:edited', after_edit)
    assert(after_send:match('### You\n\necho:second$'), 'the message is back in the input area: ' .. after_send)
    assert(not llmster.streaming(buffer), 'not left waiting')
    llmster.regenerate(buffer)
    wait(function() return not llmster.streaming(buffer) end, 'the regenerated reply')
    assert(#saved(buffer).messages == 2, vim.inspect(saved(buffer).messages))
    llmster.send_chat(buffer)
    wait(function() return not llmster.streaming(buffer) end, 'the reply')
    assert(text(buffer):match('### You\necho:second\n.-### Assistant\nsecond\n'), text(buffer))
  end)

  test('a regenerate or an edit that the server fails shows the exchange the library kept', function()
    local buffer = new_chat('echo:first')
    local kept = text(buffer)
    local file = vim.fn.tempname() .. '.txt'
    vim.fn.writefile({ 'remember this' }, file)
    -- The server fails the edit (HTTP 500): nothing was saved, so the exchange it would have replaced is drawn again
    -- from the library, and the edited text waits in the input area, still replacing the last message. The draft the
    -- edit displaced comes back when it is left.
    type_input(buffer, 'note to self')
    select_with(function(items) return items[1], 1 end, function() llmster.edit_last(buffer) end)
    vim.api.nvim_buf_set_lines(buffer, -2, -1, false, { '[[sim:status=500]] echo:edited' })
    llmster.add_context(file, buffer)
    local seen = notifications(function()
      llmster.send_chat(buffer)
      type_input(buffer, 'typed meanwhile')
      wait(function() return not llmster.streaming(buffer) end, 'the failed edit')
      wait(function() return text(buffer):find('^### You\necho:first\n') ~= nil end, 'the kept exchange')
    end)
    assert(text(buffer) == kept .. '[[sim:status=500]] echo:edited', text(buffer))
    assert(llmster.editing(buffer), 'still editing the last message')
    local hint = vim.api.nvim_buf_get_extmarks(buffer, require('llmster.chat.buffer').edit_namespace, 0, -1, {})
    assert(#hint == 1 and hint[1][2] == #vim.split(kept, '\n') - 2, 'the editing hint beside the input header: ' .. vim.inspect(hint))
    assert(#llmster.context(buffer) == 1, 'the context item waits, once: ' .. vim.inspect(llmster.context(buffer)))
    assert(vim.tbl_filter(function(n) return n.message:find('your edit is back in the input area', 1, true) end, seen)[1],
      vim.inspect(seen))
    -- Leaving the edit brings back the draft it displaced and what was typed while it was sent.
    llmster.cancel(buffer)
    assert(text(buffer) == kept .. '\nnote to self\n\ntyped meanwhile', text(buffer))
    -- Asking again of a model the server does not have saves nothing either: the answer it would have replaced
    -- comes back.
    llmster.chat(buffer).model = 'acme/no-such-model'
    seen = notifications(function()
      llmster.regenerate(buffer)
      wait(function() return not llmster.streaming(buffer) end, 'the failed regenerate')
      wait(function() return text(buffer) == kept .. '\nnote to self\n\ntyped meanwhile' end, 'the kept answer')
    end)
    llmster.chat(buffer).model = nil
    assert(vim.tbl_filter(function(n) return n.message:find('(the last answer stays)', 1, true) end, seen)[1],
      vim.inspect(seen))
    local texts = vim.tbl_map(function(m) return m.text end, saved(buffer).messages)
    assert(vim.deep_equal(texts, { 'echo:first', 'first' }), vim.inspect(texts))
    -- Sent again, the edit keeps the attachments of the message it replaces (none): the context item waits for the
    -- next message.
    select_with(function(items) return items[1], 1 end, function() llmster.edit_last(buffer) end)
    vim.api.nvim_buf_set_lines(buffer, -2, -1, false, { 'echo:edited' })
    llmster.send_chat(buffer)
    wait(function() return not llmster.streaming(buffer) end, 'the edit')
    local messages = saved(buffer).messages
    texts = vim.tbl_map(function(m) return m.text end, messages)
    assert(vim.deep_equal(texts, { 'echo:edited', 'edited' }), vim.inspect(texts))
    assert(vim.tbl_isempty(messages[1].context or {}), vim.inspect(messages[1]))
    assert(#llmster.context(buffer) == 1, vim.inspect(llmster.context(buffer)))
    assert(text(buffer):match('^### You\necho:edited\n\n### Assistant\nedited\n'), text(buffer))
  end)

  test('a range sent to a chat goes after its draft, and not into an edit of its last message', function()
    local chat = new_chat('echo:first')
    local source = vim.api.nvim_create_buf(true, true)
    vim.api.nvim_buf_set_lines(source, 0, -1, false, { 'from a range' })
    -- Editing its last message, the chat refuses the range: sent, it would have replaced that message.
    llmster.edit_last(chat)
    vim.api.nvim_buf_set_lines(chat, -2, -1, false, { 'echo:edited' })
    local editing = text(chat)
    vim.api.nvim_set_current_buf(source)
    local seen = notifications(function() vim.cmd('1LlmsterSend') end)
    assert(seen[1] and seen[1].message:find('editing its last message', 1, true), vim.inspect(seen))
    assert(text(chat) == editing and not llmster.streaming(chat), text(chat))
    -- Otherwise what is typed there stays, the range after it.
    vim.api.nvim_set_current_buf(chat)
    llmster.cancel(chat)
    type_input(chat, 'echo:draft')
    vim.api.nvim_set_current_buf(source)
    vim.cmd('1LlmsterSend')
    wait(function() return not llmster.streaming(chat) end, 'the reply')
    assert(text(chat):find('### You\necho:draft\n\nfrom a range\n', 1, true), text(chat))
  end)

  test('a chat without a model offers the server\'s models and sends with the one chosen', function()
    for _, model in ipairs(llmster.request_sync('models/list', {}).models) do
      for _, instance in ipairs(model.loaded_instances or {}) do
        llmster.request_sync('models/unload', { instanceId = instance.id })
      end
    end
    local chats_before = #llmster.request_sync('conversations/list', {}).conversations
    vim.cmd('Llmster')
    local buffer = vim.api.nvim_get_current_buf()
    type_input(buffer, 'echo:which model')
    local offered, prompt
    -- Declined, the message stays in the input area and nothing is saved.
    select_with(function(items) offered = items return nil, nil end, function()
      vim.cmd('LlmsterSend')
      wait(function() return offered ~= nil and not llmster.streaming(buffer) end, 'the offer')
    end)
    assert(text(buffer) == '### You\n\necho:which model', text(buffer))
    local listed = llmster.request_sync('conversations/list', {}).conversations
    assert(#listed == chats_before, 'the declined send saved a conversation: ' .. vim.inspect(listed))
    offered = nil
    select_with(function(items, options) offered, prompt = items, options.prompt return 'acme/tiny-1b', 1 end, function()
      vim.cmd('LlmsterSend')
      wait(function() return offered ~= nil and not llmster.streaming(buffer)
        and text(buffer):find('### Assistant\nwhich model') ~= nil end, 'the offer and the answer')
    end)
    assert(prompt:find('No model is chosen', 1, true) and vim.tbl_contains(offered, 'acme/tiny-1b'), vim.inspect(offered))
    assert(saved(buffer).conversation.modelKey == 'acme/tiny-1b', vim.inspect(saved(buffer).conversation))
  end)

  -- Types a message the server refuses (HTTP 500) in `buffer` and sends it, or with `down` sends it when llmster
  -- cannot start; returns the buffer's text before the typing and with it typed, once the message is back.
  -- Headless Neovim keeps a script's changes in one undo block: each is ended, as key presses and callbacks would.
  local function refused_send(buffer, down)
    vim.cmd('let &undolevels = &undolevels')
    local untyped = text(buffer)
    type_input(buffer, '[[sim:status=500]] echo:refused')
    vim.cmd('let &undolevels = &undolevels')
    local typed = text(buffer)
    if down then
      without_llmster(function() pcall(llmster.send_chat, buffer) end)
    else
      notifications(function() llmster.send_chat(buffer) end)
    end
    vim.cmd('let &undolevels = &undolevels')
    wait(function() return llmster.chat(buffer).returned end, 'the message back in the input area')
    assert(text(buffer) == typed, 'the message is back as typed: ' .. text(buffer))
    return untyped, typed
  end

  test('undo after a refused send goes back to before it, not to an exchange the library never held', function()
    -- Refused by the server (HTTP 500), in a chat with replies, and never sent (llmster cannot start).
    for _, case in ipairs({ { first = nil }, { first = 'echo:one' }, { first = 'echo:one', down = true } }) do
      local buffer = new_chat(case.first)
      local untyped, typed = refused_send(buffer, case.down)
      -- The send and its return leave no undo step that changes nothing: the first undo takes the typing away.
      vim.cmd('silent undo')
      assert(not text(buffer):find('### Assistant\n\n', 1, true), 'undo brought back an exchange: ' .. text(buffer))
      assert(text(buffer) == untyped, 'the first undo takes the typing away: ' .. text(buffer))
      vim.cmd('silent redo')
      assert(text(buffer) == typed, 'redo types it again: ' .. text(buffer))
      vim.cmd('bwipeout! ' .. buffer)
    end
  end)

  test('redo after a refused send never brings back an exchange the library never held', function()
    -- Refused by the server (HTTP 500), in a chat with replies, and never sent (llmster cannot start).
    for _, case in ipairs({ { first = nil }, { first = 'echo:one' }, { first = 'echo:one', down = true } }) do
      local buffer = new_chat(case.first)
      local held = case.first and #saved(buffer).messages or 0
      local untyped, typed = refused_send(buffer, case.down)
      -- The library holds no exchange for the refused message: neither undo nor redo shows one.
      local function shows_what_the_library_holds(what)
        local body = text(buffer)
        assert(not body:find('### Assistant\n\n', 1, true) and not body:find('refused\n\n### Assistant', 1, true),
          what .. ' brought back an exchange the library never held: ' .. body)
        assert(body == typed or body == untyped, what .. ' shows the chat as typed or as before the typing: ' .. body)
        local conversation = llmster.chat(buffer).conversation
        local messages = conversation and llmster.request_sync('conversations/get', { id = conversation }).messages or {}
        assert(#messages == held, 'the library holds what it held before the send: ' .. vim.inspect(messages))
      end
      -- Redo straight after the refusal: nothing to redo.
      vim.cmd('silent! redo')
      shows_what_the_library_holds('redo after the refusal')
      assert(text(buffer) == typed, 'the message stays in the input area: ' .. text(buffer))
      vim.cmd('silent undo')
      assert(text(buffer) == untyped, 'the first undo takes the typing away: ' .. text(buffer))
      vim.cmd('silent redo')
      assert(text(buffer) == typed, 'redo types it again: ' .. text(buffer))
      -- A second redo (<C-r> again) has nothing more to bring back than the message in the input area.
      vim.cmd('silent! redo')
      shows_what_the_library_holds('a second redo')
      assert(text(buffer) == typed, 'the message is still in the input area: ' .. text(buffer))
      vim.cmd('silent! redo')
      shows_what_the_library_holds('a third redo')
      assert(text(buffer) == typed, 'the message is still in the input area: ' .. text(buffer))
      -- The message sends from there once the server takes it.
      local _, row = require('llmster.chat.buffer').input_text(buffer)
      vim.api.nvim_buf_set_lines(buffer, row + 1, -1, false, { 'echo:accepted' })
      llmster.send_chat(buffer)
      wait(function() return not llmster.streaming(buffer) end, 'the reply')
      assert(text(buffer):find('### You\necho:accepted\n\n### Assistant\naccepted\n\n### You\n$'), text(buffer))
      assert(#saved(buffer).messages == held + 2, vim.inspect(saved(buffer).messages))
      vim.cmd('bwipeout! ' .. buffer)
    end
  end)

  test('redo after an undo that took a streaming message, edit or answer asked again back never brings it back', function()
    -- The buffer's transcript (up to the input's header) as the library holds the conversation, drawn as a reopened
    -- chat draws it.
    local function shows_the_library(buffer, what)
      local lines = {}
      for _, message in ipairs(saved(buffer).messages) do
        vim.list_extend(lines, (require('llmster.chat.stream').message_lines(message)))
        table.insert(lines, '')
      end
      table.insert(lines, '### You')
      local _, row = require('llmster.chat.buffer').input_text(buffer)
      local shown = table.concat(vim.api.nvim_buf_get_lines(buffer, 0, row + 1, false), '\n')
      assert(shown == table.concat(lines, '\n'), what .. ': the buffer shows what the library does not hold:\n'
        .. text(buffer) .. '\nthe library:\n' .. table.concat(lines, '\n'))
    end
    -- Starts a send with `start`, undoes it once its reply streams, and waits for the exchange to leave the library.
    local function undo_while_streaming(buffer, start, first_words)
      vim.cmd('let &undolevels = &undolevels')
      local seen = notifications(function()
        start()
        wait(function() return llmster.streaming(buffer) and text(buffer):find(first_words, 1, true) ~= nil end, 'the first words')
        vim.cmd('silent undo')
        wait(function() return not llmster.streaming(buffer) and not llmster.chat(buffer).withdrawing end, 'the undo')
      end)
      assert(vim.tbl_filter(function(n) return n.message:find('undo took the', 1, true) end, seen)[1], vim.inspect(seen))
    end
    -- <C-r>, twice: it brings back nothing the library does not hold, and leaves the buffer as the undo left it.
    local function redo_brings_nothing_back(buffer, shown, what)
      for count = 1, 2 do
        vim.cmd('silent! redo')
        assert(text(buffer) == shown, what .. ', redo ' .. count .. ' brought back the exchange undo took back:\n' .. text(buffer))
        shows_the_library(buffer, what .. ', redo ' .. count)
      end
    end
    local function replace_input(buffer, line)
      local _, row = require('llmster.chat.buffer').input_text(buffer)
      vim.api.nvim_buf_set_lines(buffer, row + 1, -1, false, { line })
    end
    local function flush()
      -- What a reply's end scheduled (callbacks run in order) has drawn.
      local flushed = false
      vim.schedule(function() flushed = true end)
      wait(function() return flushed end, 'the drawing scheduled at the reply\'s end')
    end

    -- a) A message: the first undo took it back, redo neither brings it back nor keeps it for a later send.
    local buffer = new_chat('echo:one')
    flush()
    vim.cmd('let &undolevels = &undolevels')
    local untyped = text(buffer)
    type_input(buffer, '[[sim:rate=5]] echo:ghost plain one two three four five six seven eight')
    local typed = text(buffer)
    undo_while_streaming(buffer, function() llmster.send_chat(buffer) end, '### Assistant\nghost')
    assert(text(buffer) == typed, 'undo took the send back: ' .. text(buffer))
    shows_the_library(buffer, 'the undo of a message')
    redo_brings_nothing_back(buffer, typed, 'after the undo of a message')
    vim.cmd('silent undo')
    assert(text(buffer) == untyped, 'the next undo takes the typing away: ' .. text(buffer))
    vim.cmd('silent redo')
    assert(text(buffer) == typed, 'redo types it again: ' .. text(buffer))
    redo_brings_nothing_back(buffer, typed, 'after the typing was undone and redone')
    replace_input(buffer, 'echo:two')
    llmster.send_chat(buffer)
    wait(function() return not llmster.streaming(buffer) end, 'the next reply')
    flush()
    shows_the_library(buffer, 'a later send')
    assert(#saved(buffer).messages == 4, vim.inspect(saved(buffer).messages))

    -- b) An edit: undo leaves the chat editing again, and redo does not bring the edit back (with its header over
    -- an empty input that a send would then make an edit of the library's last message).
    llmster.edit_last(buffer)
    vim.cmd('let &undolevels = &undolevels')
    replace_input(buffer, '[[sim:rate=5]] echo:second edit then undo one two three four five six seven')
    local editing = text(buffer)
    undo_while_streaming(buffer, function() llmster.send_chat(buffer) end, '### Assistant\nsecond')
    assert(text(buffer) == editing and llmster.editing(buffer), 'undo took the edit back, still editing: ' .. text(buffer))
    shows_the_library(buffer, 'the undo of an edit')
    redo_brings_nothing_back(buffer, editing, 'after the undo of an edit')
    assert(llmster.editing(buffer), 'still editing the last message, which the input holds: ' .. text(buffer))
    -- The edit, sent now, replaces the last message the library holds, as the buffer shows.
    replace_input(buffer, '[[sim:rate=8]] echo:two edited one two three four five six seven')
    llmster.send_chat(buffer)
    wait(function() return not llmster.streaming(buffer) end, 'the edit')
    flush()
    shows_the_library(buffer, 'the edit sent')
    local texts = vim.tbl_map(function(m) return m.text end, saved(buffer).messages)
    assert(#texts == 4 and texts[4] == 'two edited one two three four five six seven', vim.inspect(texts))
    assert(not llmster.editing(buffer), 'the next send is a new message')

    -- c) An answer asked again: undo brings the answer before back, and redo does not put the cut-off one in its place.
    local before, answer = text(buffer), saved(buffer).messages[4].id
    undo_while_streaming(buffer, function() llmster.regenerate(buffer) end, '### Assistant\ntwo')
    assert(text(buffer) == before, 'undo brought the answer before back: ' .. text(buffer))
    redo_brings_nothing_back(buffer, before, 'after the undo of an answer asked again')
    assert(saved(buffer).messages[4].id == answer, 'the library keeps the answer before')
    type_input(buffer, 'echo:three')
    llmster.send_chat(buffer)
    wait(function() return not llmster.streaming(buffer) end, 'the last reply')
    flush()
    shows_the_library(buffer, 'the last send')
    assert(#saved(buffer).messages == 6, vim.inspect(saved(buffer).messages))
  end)

  test('editing a message sent with a context item puts its text alone in the input', function()
    vim.cmd('Llmster')
    local chat = vim.api.nvim_get_current_buf()
    local file = vim.fn.tempname() .. '.txt'
    vim.fn.writefile({ 'remember this' }, file)
    llmster.add_context(file, chat)
    type_input(chat, 'echo:with notes')
    vim.cmd('LlmsterSend')
    wait(function() return not llmster.streaming(chat) end, 'the reply')
    assert(text(chat):find('[context: ', 1, true), text(chat))
    llmster.edit_last(chat)
    assert(text(chat):match('### You\necho:with notes$'), 'the message alone, no [context: …] line: ' .. text(chat))
    llmster.send_chat(chat)
    wait(function() return not llmster.streaming(chat) end, 'the edited reply')
    local messages = saved(chat).messages
    assert(messages[1].text == 'echo:with notes', vim.inspect(messages[1]))
    assert(#messages[1].context == 1, 'the edit keeps the item: ' .. vim.inspect(messages[1].context))
  end)

  test('an edit without text is refused, regenerating keeps the edit, and a streaming chat refuses a range', function()
    local chat = new_chat('echo:first')
    local file = vim.fn.tempname() .. '.txt'
    vim.fn.writefile({ 'remember this' }, file)
    llmster.edit_last(chat)
    vim.api.nvim_buf_set_lines(chat, -2, -1, false, { '' })
    llmster.add_context(file, chat)
    local before = text(chat)
    local sent, failure = pcall(llmster.send_chat, chat)
    assert(not sent and tostring(failure):find('nothing to send', 1, true), tostring(failure))
    assert(text(chat) == before and llmster.editing(chat), text(chat))
    -- Asking again leaves the edit where it is, in the input area.
    vim.api.nvim_buf_set_lines(chat, -2, -1, false, { 'echo:edited' })
    llmster.regenerate(chat)
    wait(function() return not llmster.streaming(chat) end, 'the regenerated reply')
    assert(llmster.editing(chat) and text(chat):match('echo:edited$'), text(chat))
    llmster.cancel(chat)
    -- A range for a chat whose reply streams is refused before it touches the input.
    vim.api.nvim_buf_set_lines(chat, -2, -1, false, { '[[sim:stall=30]] echo:slow one two three four' })
    llmster.send_chat(chat)
    wait(function() return text(chat):find('### Assistant\nslow') ~= nil end, 'the first words')
    vim.api.nvim_set_current_buf(chat)
    local ranged, refusal = pcall(llmster.send_text, 'from a range')
    assert(not ranged and tostring(refusal):find('still streaming', 1, true), tostring(refusal))
    assert(not text(chat):find('from a range', 1, true), text(chat))
    llmster.cancel(chat)
    wait(function() return not llmster.streaming(chat) end, 'the cancelled reply')
  end)

  test('a dropped reply shows its reason at once, as the reopened chat does', function()
    local buffer = new_chat('[[sim:drop-after=3]] echo:one two three four five six')
    local reply = saved(buffer).messages[2]
    assert(reply.status == 'incomplete' and type(reply.error) == 'string' and reply.error ~= '', vim.inspect(reply))
    assert(text(buffer):find('\n[incomplete: ' .. reply.error .. ']\n', 1, true), text(buffer))
    local conversation = llmster.chat(buffer).conversation
    local shown = text(buffer)
    vim.cmd('bwipeout ' .. buffer)
    assert(text(llmster.open(conversation)) == shown, 'the same when reopened')
  end)

  test('the open transcript is the reopened one: markers, reasoning time, chips, template, meter', function()
    with_config({ 'preset.kindly.template = {{input}}, kindly' }, function()
      local notes = home .. '/chips.txt'
      vim.fn.writefile({ 'chip words' }, notes)
      local buffer = new_chat('[[sim:reasoning]] echo:think')
      vim.cmd('LlmsterAdd ' .. vim.fn.fnameescape(notes))
      type_input(buffer, '/file ' .. notes)
      send_and_wait(buffer, 'echo:with chips')
      llmster.apply_preset('kindly', buffer)
      send_and_wait(buffer, 'echo:templated')
      type_input(buffer, '[[sim:stall=30]] echo:one two three four five six')
      llmster.send_chat(buffer)
      wait(function() return text(buffer):find('### Assistant\none') ~= nil end, 'the first words')
      llmster.cancel(buffer)
      wait(function() return not llmster.streaming(buffer) end, 'the cancelled reply')
      local shown, answer = text(buffer), saved(buffer)
      assert(shown:find('echo:templated, kindly', 1, true) and shown:find('[context: chips.txt]', 1, true)
        and not shown:find('/file', 1, true), shown)
      local open_folds = llmster.folds(buffer)
      assert(llmster.statusline():find(answer.contextMeter.label, 1, true), llmster.statusline() .. ' / ' .. answer.contextMeter.label)
      vim.cmd('bwipeout ' .. buffer)
      local reopened = llmster.open(answer.conversation.id)
      assert(text(reopened) == shown, 'open:\n' .. shown .. '\nreopened:\n' .. text(reopened))
      assert(vim.deep_equal(llmster.folds(reopened), open_folds), vim.inspect(open_folds) .. vim.inspect(llmster.folds(reopened)))
      assert(llmster.statusline():find(answer.contextMeter.label, 1, true), llmster.statusline())
    end)
  end)

  test('a conversation changed elsewhere is drawn again from the library', function()
    local buffer = new_chat('echo:here')
    type_input(buffer, 'unsent words')
    local id = llmster.chat(buffer).conversation
    local seen = notifications(function()
      local output = vim.fn.system({ bin .. '/llmster', 'ask', '--chat', id, 'echo:from elsewhere' })
      assert(vim.v.shell_error == 0, output)
      wait(function() return text(buffer):find('### Assistant\nfrom elsewhere', 1, true) ~= nil end, 'the chat drawn again')
    end)
    assert(text(buffer):match('### You\necho:from elsewhere\n\n### Assistant\nfrom elsewhere\n\n### You\n\nunsent words$'), text(buffer))
    assert(#seen >= 1 and seen[1].message:find('changed elsewhere', 1, true), vim.inspect(seen))
    -- A notice that arrives while a reply streams (another process wrote just before this send; no process can
    -- write while a reply streams) says so, and the chat is drawn again when the reply ends.
    vim.api.nvim_buf_set_lines(buffer, -2, -1, false, { '[[sim:stall=60]] echo:slow one two three four' })
    local streaming, original = {}, vim.notify
    vim.notify = function(message, level) table.insert(streaming, { message = message, level = level }) end
    local ok, failure = pcall(function()
      llmster.send_chat(buffer)
      wait(function() return text(buffer):find('### Assistant\nslow') ~= nil end, 'the first words')
      require('llmster.client').dispatch({ jsonrpc = '2.0', method = 'conversation/changed', params = { conversationId = id } })
      assert(llmster.chat(buffer).changed_elsewhere, 'the chat knows it changed elsewhere')
      llmster.cancel(buffer)
      wait(function() return not llmster.streaming(buffer) end, 'the reply')
      wait(function() return #streaming >= 2 end, 'the redraw')
    end)
    vim.notify = original
    assert(ok, failure)
    assert(streaming[1] and streaming[1].message:find('shown again from the library when the reply ends', 1, true), vim.inspect(streaming))
    assert(streaming[2] and streaming[2].message:find('changed elsewhere while the reply streamed', 1, true), vim.inspect(streaming))
  end)

  test('text typed in Insert mode while another client\'s reply streams into the chat stays in the input', function()
    local buffer = new_chat('echo:here')
    local id = llmster.chat(buffer).conversation
    local answer = 'elsewhere one two three four five six seven eight nine ten eleven twelve'
    -- The other client (another editor, as `llmster ask --chat` does it) sends with a slow reply: the chat is drawn
    -- again from the library as that exchange is saved, while Insert mode goes on in the input here.
    local exited, output = nil, {}
    local other = vim.fn.jobstart({ bin .. '/llmster', 'ask', '--chat', id, '[[sim:rate=8]] echo:' .. answer }, {
      on_stdout = function(_, data) vim.list_extend(output, data) end,
      on_stderr = function(_, data) vim.list_extend(output, data) end,
      on_exit = function(_, code) exited = code end,
    })
    assert(other > 0, 'the other client started')
    vim.fn.chanclose(other, 'stdin')
    -- After each redraw one more word is typed, as a user typing on does; once the chat shows the whole reply, and
    -- the other client is done, Insert mode ends. Typed keys are read in Insert mode only (feedkeys ! below).
    local words, redraws, done = { 'one ', 'two ', 'three ', 'four ', 'five ', 'six ', 'seven ', 'eight ' }, 0, false
    local modes = {}
    local typed = 'start '
    local function finished()
      return exited ~= nil and text(buffer):find('### Assistant\n' .. answer .. '\n', 1, true) ~= nil
    end
    local function stop()
      if done then return end
      done = true
      vim.api.nvim_feedkeys('\27', 't', false)
    end
    local original = vim.notify
    vim.notify = function(message, level)
      if not message:find('changed elsewhere', 1, true) then return original(message, level) end
      redraws = redraws + 1
      table.insert(modes, vim.api.nvim_get_mode().mode)
      local word = words[redraws] or 'more '
      typed = typed .. word
      vim.api.nvim_feedkeys(word, 't', false)
      if finished() then stop() end
    end
    local poll = vim.loop.new_timer()
    local started = vim.loop.now()
    poll:start(50, 50, vim.schedule_wrap(function()
      -- The last redraw may come before the other client exits; 30 s at most (then the test fails, not hangs).
      if finished() or vim.loop.now() - started > 30000 then stop() end
    end))
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    local ok, failure = pcall(vim.api.nvim_feedkeys, 'GAstart ', 'xt!', false)
    poll:stop()
    poll:close()
    vim.notify = original
    assert(ok, failure)
    assert(exited == 0, 'the other client: ' .. tostring(exited) .. ' ' .. table.concat(output, '\n'))
    assert(finished(), 'the chat shows the other client\'s whole reply: ' .. text(buffer))
    assert(redraws >= 2, 'the chat was drawn again while the reply streamed: ' .. redraws)
    assert(#vim.tbl_filter(function(mode) return mode ~= 'i' end, modes) == 0, 'each redraw came in Insert mode: '
      .. vim.inspect(modes))
    local body = text(buffer)
    local input = '\n### You\n' .. typed
    assert(body:sub(-#input) == input, 'every typed word is in the input (' .. typed .. '):\n' .. body)
    assert(body:find('### You\n[[sim:rate=8]] echo:' .. answer .. '\n\n### Assistant\n' .. answer .. '\n\n### You\n', 1, true),
      'the transcript is the library\'s: ' .. body)
  end)

  test('a draft sent elsewhere leaves the input, unless it was changed here', function()
    -- The other client clears the library's draft before it sends (an editor), or the library drops it as `ask` sends it.
    for _, case in ipairs({ { cleared = true }, { cleared = false }, { cleared = true, changed = true } }) do
      local first = new_chat('echo:here')
      local id = llmster.chat(first).conversation
      vim.cmd('bwipeout! ' .. first)
      llmster.request_sync('drafts/set', { conversationId = id, text = '  echo:the draft' })
      local buffer = llmster.open(id)
      assert(text(buffer):match('### You\n  echo:the draft$'), text(buffer))
      if case.changed then vim.api.nvim_buf_set_lines(buffer, -2, -1, false, { 'echo:the draft, changed here' }) end
      if case.cleared then llmster.request_sync('drafts/set', { conversationId = id, text = '' }) end
      local seen = notifications(function()
        local output = vim.fn.system({ bin .. '/llmster', 'ask', '--chat', id, 'echo:the draft' })
        assert(vim.v.shell_error == 0, output)
        wait(function() return text(buffer):find('### Assistant\nthe draft', 1, true) ~= nil end, 'the chat drawn again')
      end)
      if case.changed then
        assert(text(buffer):match('\n### You\necho:the draft, changed here$'), 'the changed input stays: ' .. text(buffer))
      else
        assert(text(buffer):match('### Assistant\nthe draft\n\n### You\n$'), 'the input is empty: ' .. text(buffer))
        assert(seen[1] and seen[1].message:find('was sent there', 1, true), 'it says why: ' .. vim.inspect(seen))
        vim.cmd('enew')
        local draft = llmster.request_sync('drafts/get', { conversationId = id }).text
        assert(draft == '', 'the draft sent elsewhere left the library: ' .. vim.inspect(draft))
      end
      vim.cmd('bwipeout! ' .. buffer)
    end
  end)

  test('an edit begun before another client sent is refused, not applied to the newer message', function()
    local buffer = new_chat('echo:one')
    local id = llmster.chat(buffer).conversation
    llmster.edit_last(buffer)
    vim.api.nvim_buf_set_lines(buffer, -2, -1, false, { 'echo:one edited' })
    local output = vim.fn.system({ bin .. '/llmster', 'ask', '--chat', id, 'echo:two from elsewhere' })
    assert(vim.v.shell_error == 0, output)
    wait(function() return text(buffer):find('two from elsewhere', 1, true) ~= nil end, 'the chat drawn again')
    local said = function(seen)
      return vim.tbl_filter(function(n) return n.message:find('another client sent to it meanwhile', 1, true) end, seen)
    end
    local seen = notifications(function()
      llmster.send_chat(buffer)
      wait(function() return not llmster.streaming(buffer) end, 'the refusal')
    end)
    assert(#said(seen) == 1, vim.inspect(seen) .. text(buffer))
    local texts = vim.tbl_map(function(message) return message.text end,
      llmster.request_sync('conversations/get', { id = id }).messages)
    assert(vim.deep_equal(texts, { 'echo:one', 'one', 'echo:two from elsewhere', 'two from elsewhere' }), vim.inspect(texts))
    assert(text(buffer):find('### You\necho:one edited$') ~= nil, 'the edit is back in the input: ' .. text(buffer))
    vim.cmd('bwipeout! ' .. buffer)
  end)

  test('code block N of the last reply is yanked with gy or :LlmsterCode, or put with :LlmsterCode!', function()
    local buffer = new_chat()
    vim.api.nvim_buf_set_lines(buffer, -1, -1, false, { 'echo:```lua', 'local x = 1', '```', '', '```sh', 'echo two', '```' })
    llmster.send_chat(buffer)
    wait(function() return not llmster.streaming(buffer) end, 'the reply')
    vim.fn.setreg('"', '')
    vim.cmd('normal 2gy')
    assert(vim.fn.getreg('"') == 'echo two\n', vim.inspect(vim.fn.getreg('"')))
    vim.cmd('LlmsterCode')
    assert(vim.fn.getreg('"') == 'local x = 1\n', vim.inspect(vim.fn.getreg('"')))
    local source = vim.api.nvim_create_buf(true, true)
    vim.api.nvim_set_current_buf(source)
    vim.api.nvim_buf_set_lines(source, 0, -1, false, { 'above' })
    vim.cmd('LlmsterCode! 2')
    assert(text(source) == 'above\necho two', text(source))
    local seen = notifications(function() vim.cmd('LlmsterCode 3') end)
    assert(#seen == 1 and seen[1].message:find('2 code blocks', 1, true), vim.inspect(seen))
  end)

  test(':LlmsterServer switches the server profile', function()
    local dir = vim.env.XDG_CONFIG_HOME .. '/llmster'
    vim.fn.mkdir(dir, 'p')
    local config = vim.fn.filereadable(dir .. '/config') == 1 and vim.fn.readfile(dir .. '/config') or {}
    vim.fn.writefile(vim.list_extend(vim.deepcopy(config), { 'server.other = ' .. url }), dir .. '/config')
    local ok, failure = pcall(function()
      llmster.reload_config()
      local offered
      select_with(function(items, options)
        offered = vim.tbl_map(options.format_item, items)
        for _, item in ipairs(items) do if item.name == 'other' then return item, 1 end end
      end, function() vim.cmd('LlmsterServer') end)
      assert(offered and offered[1]:find('other', 1, true), vim.inspect(offered))
      assert(llmster.request_sync('servers/list', {}).currentProfile == 'other')
      local buffer = new_chat('echo:on the other profile')
      assert(text(buffer):find('### Assistant\non the other profile', 1, true), text(buffer))
    end)
    vim.fn.writefile(config, dir .. '/config')
    pcall(llmster.request_sync, 'servers/use', { server = url })
    assert(ok, failure)
  end)

  test(':LlmsterBackup! encrypts the backup, its password asked twice', function()
    local inputsecret, answers = vim.fn.inputsecret, {}
    vim.fn.inputsecret = function() return table.remove(answers, 1) or '' end
    local ok, failure = pcall(function()
      local path = home .. '/secret.llmster-backup'
      answers = { 'correct horse', 'correct horse' }
      local seen = notifications(function() vim.cmd('LlmsterBackup! ' .. path) end)
      local said = table.concat(vim.tbl_map(function(n) return n.message end, seen), '\n')
      assert(vim.fn.filereadable(path) == 1 and said:find('encrypted', 1, true), said)
      local typo = home .. '/typo.llmster-backup'
      answers = { 'correct horse', 'correct hose' }
      seen = notifications(function() vim.cmd('LlmsterBackup! ' .. typo) end)
      said = table.concat(vim.tbl_map(function(n) return n.message end, seen), '\n')
      assert(vim.fn.filereadable(typo) == 0 and said:find('differ', 1, true), said)
    end)
    vim.fn.inputsecret = inputsecret
    assert(ok, failure)
  end)

  -- The behaviour both editors must have (contrib/editor-scenarios.txt), and this suite's test of each.
  local scenario_tests = {
    ['undo-while-streaming'] = 'undo while a reply streams cancels it and leaves the chat usable',
    ['cursor-after-send'] = 'after a send the cursor stays in the input, and typing never enters the reply',
    ['undo-after-streaming'] = 'undo after a reply takes the exchange away in one step',
    ['cursor-after-regenerate'] = 'the cursor stays in the input after regenerate',
    ['fresh-context'] = 'lost server context: a prompt offers a fresh context and resends',
    ['fresh-context-declined'] = 'a declined fresh context leaves the message in the input area; :LlmsterFresh sends it later',
    ['failed-send'] = 'a failed send puts the message back in a chat with replies',
    ['drafts-on-exit'] = 'drafts are saved when Neovim exits',
    ['delete-open-chat'] = 'deleting an open conversation closes its chat; deleted elsewhere, the next send says so',
    ['rewrite-line-ends'] = 'a rewrite without a final newline keeps the lines apart',
    ['model-before-first-message'] = 'a model chosen before the first message follows the load policy',
    ['config-reload'] = 'presets start a new chat and apply to the current one',
    ['edit-last'] = 'edit-last asks before replacing typed text, shows it is editing, and cancel leaves',
    ['recap'] = 'lost server context: the prompt offers a recap of the earlier turns, as does :LlmsterFresh recap',
    ['fork'] = ':LlmsterFork starts a new conversation from a reply, marked in the library',
    ['image'] = 'an image goes with the next message, to a model that sees images',
    ['dry-run'] = ':LlmsterPreview shows the request the next send would make, and sends nothing',
    ['copy-code-block'] = 'code block N of the last reply is yanked with gy or :LlmsterCode, or put with :LlmsterCode!',
    ['server-switch'] = ':LlmsterServer switches the server profile',
    ['encrypted-backup'] = ':LlmsterBackup! encrypts the backup, its password asked twice',
    ['changed-elsewhere'] = 'a conversation changed elsewhere is drawn again from the library',
    ['dropped-reply-reason'] = 'a dropped reply shows its reason at once, as the reopened chat does',
    ['open-equals-reopened'] = 'the open transcript is the reopened one: markers, reasoning time, chips, template, meter',
    ['refused-send'] = 'a refused send puts text, images and context items back, drawn as not sent',
    ['range-into-chat'] = 'a range sent to a chat goes after its draft, and not into an edit of its last message',
    ['choose-model'] = 'a chat without a model offers the server\'s models and sends with the one chosen',
    ['failed-regenerate-or-edit'] = 'a regenerate or an edit that the server fails shows the exchange the library kept',
    ['control-characters'] = 'control characters in model output are shown as visible escapes, never as raw bytes',
    ['think-tags'] = 'reasoning written inside <think> tags in the answer is folded as reasoning, without the tags',
    ['progress-ticks'] = 'a long prompt shows its progress ticking, and a cancel during it says the server finishes it',
    ['overflow-offer'] = 'a message that would fill the context is offered a larger one, which sends it again',
    ['lmstudio-import'] = ':LlmsterImportLMStudio previews LM Studio\'s chats and imports them once',
  }
  test('every shared editor scenario has a test here', function()
    -- Beside this test file in the source tree (the installed plugin has no copy).
    local file = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h:h') .. '/editor-scenarios.txt'
    local missing = {}
    for _, line in ipairs(vim.fn.readfile(file)) do
      local slug = line:match('^([%w-]+):')
      if slug and not (scenario_tests[slug] and tests[scenario_tests[slug]]) then table.insert(missing, slug) end
    end
    assert(#missing == 0, 'scenarios without a test in this suite: ' .. table.concat(missing, ', '))
  end)

  -- In the order they are written; each makes the conversations it needs (LLMSTER_TEST runs one on its own), so
  -- LLMSTER_TEST_SEED=N runs them in an order shuffled by N instead, to show none depends on another. Each starts
  -- on a reset simulator (nothing loaded) with no chat or other buffer open and no request running.
  local only = os.getenv('LLMSTER_TEST')
  local seed = tonumber(os.getenv('LLMSTER_TEST_SEED') or '')
  if seed then
    math.randomseed(seed)
    for index = #order, 2, -1 do
      local other = math.random(index)
      order[index], order[other] = order[other], order[index]
    end
    report('order shuffled by seed ' .. seed)
  end
  for _, name in ipairs(order) do
    if only and not name:find(only, 1, true) then goto continue end
    -- A reply an earlier test left streaming would make this one's configuration reload wait for it, and would
    -- reach the simulator after its reset: it is cancelled and waited out first.
    local client = require('llmster.client')
    for _, id in ipairs(client.waiting()) do client.cancel_request(id) end
    local idle = vim.wait(10000, function() return #client.waiting() == 0 end, 10)
    reset_simulator()
    vim.cmd('silent! %bwipeout!')
    local passed_ok, failure = pcall(function()
      assert(idle, 'requests of earlier tests still running: ' .. vim.inspect(client.waiting()))
      tests[name]()
    end)
    if passed_ok then
      passed = passed + 1
      report('ok   ' .. name)
    else
      failures = failures + 1
      report('FAIL ' .. name .. ': ' .. tostring(failure))
    end
    ::continue::
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
