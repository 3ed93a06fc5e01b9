-- llmster.nvim: chat with LM Studio models through `llmster rpc` (see llmster-rpc(7)).
-- Neovim 0.7+, no dependencies.
local M = {}

M.config = {
  -- The llmster executable and global options put before `rpc`.
  cmd = { 'llmster' },
  -- How often, at most, the server sends streamed text.
  coalesce_ms = 50,
  -- Seconds to wait for a synchronous answer.
  timeout = 60,
}

local state = { job = nil, next_id = 0, callbacks = {}, events = {}, partial = '' }
local namespace = vim.api.nvim_create_namespace('llmster')

function M.setup(options)
  M.config = vim.tbl_extend('force', M.config, options or {})
end

local function decode(line)
  local ok, value = pcall(vim.json.decode, line)
  if ok then return value end
  return nil
end

local function isnil(value)
  return value == nil or value == vim.NIL
end

local function dispatch(message)
  if message.method == 'chat/event' then
    local handler = state.events[message.params.requestId]
    if handler then handler(message.params) end
  elseif message.method == nil and not isnil(message.id) then
    local callback = state.callbacks[message.id]
    if callback then
      state.callbacks[message.id] = nil
      state.events[message.id] = nil
      callback(not isnil(message.result) and message.result or nil, not isnil(message.error) and message.error or nil)
    end
  end
end

-- jobstart hands over lines split at newlines; the last item is the start of an unfinished line.
local function on_stdout(_, data)
  data[1] = state.partial .. data[1]
  state.partial = table.remove(data)
  for _, line in ipairs(data) do
    if line:match('%S') then
      local message = decode(line)
      if message then dispatch(message) end
    end
  end
end

local function on_exit()
  state.job = nil
  state.partial = ''
  local callbacks = state.callbacks
  state.callbacks, state.events = {}, {}
  for _, callback in pairs(callbacks) do
    callback(nil, { message = 'llmster stopped', data = { kind = 'server_unreachable' } })
  end
end

local function send(message)
  vim.fn.chansend(state.job, vim.json.encode(message) .. '\n')
end

function M.running()
  return state.job ~= nil
end

function M.start()
  if state.job then return end
  local cmd = vim.deepcopy(M.config.cmd)
  table.insert(cmd, 'rpc')
  state.job = vim.fn.jobstart(cmd, {
    on_stdout = on_stdout,
    on_stderr = function() end,
    on_exit = on_exit,
  })
  if state.job <= 0 then
    state.job = nil
    error('llmster: cannot start ' .. table.concat(cmd, ' '))
  end
  M.request_sync('initialize', { protocolVersion = 1, coalesceMilliseconds = M.config.coalesce_ms })
end

function M.stop()
  if state.job then
    vim.fn.jobstop(state.job)
    vim.fn.jobwait({ state.job }, 5000)
    state.job = nil
  end
end

-- Sends a request; `callback(result, error)`; `on_event(params)` gets its `chat/event`s. Returns the id.
function M.request(method, params, callback, on_event)
  if method ~= 'initialize' then M.start() end
  state.next_id = state.next_id + 1
  local id = state.next_id
  state.callbacks[id] = callback
  state.events[id] = on_event
  -- An empty Lua table would encode as [], so no parameters are sent as {}.
  if params == nil or next(params) == nil then params = vim.empty_dict() end
  send({ jsonrpc = '2.0', id = id, method = method, params = params })
  return id
end

function M.request_sync(method, params)
  local done, result, failure = false, nil, nil
  M.request(method, params, function(r, e) done, result, failure = true, r, e end)
  vim.wait(M.config.timeout * 1000, function() return done end, 10)
  if failure then error('llmster: ' .. tostring(failure.message), 0) end
  if not done then error('llmster: no answer to ' .. method, 0) end
  return result
end

function M.cancel_request(id)
  if state.job then send({ jsonrpc = '2.0', method = '$/cancelRequest', params = { id = id } }) end
end

-- Chat buffers --------------------------------------------------------------------------------

local chats = {} -- buffer number → { conversation = id, model = key, stream = { id, mark } }

local function lines_of(text)
  return vim.split(text, '\n', { plain = true })
end

local function append(buffer, lines)
  vim.api.nvim_buf_set_lines(buffer, -1, -1, false, lines)
end

local function new_input_area(buffer)
  append(buffer, { '', '### You', '' })
end

function M.open(conversation_id)
  M.start()
  local buffer = vim.api.nvim_create_buf(true, true)
  vim.api.nvim_buf_set_option(buffer, 'filetype', 'markdown')
  chats[buffer] = {}
  vim.api.nvim_buf_set_lines(buffer, 0, -1, false, { '### You', '' })
  if conversation_id then
    local answer = M.request_sync('conversations/get', { id = conversation_id })
    chats[buffer].conversation = answer.conversation.id
    local lines = {}
    for _, message in ipairs(answer.messages) do
      table.insert(lines, message.role == 'user' and '### You' or '### Assistant')
      vim.list_extend(lines, lines_of(message.text))
      if message.role ~= 'user' and message.status ~= 'complete' then table.insert(lines, '[' .. message.status .. ']') end
      table.insert(lines, '')
    end
    vim.api.nvim_buf_set_lines(buffer, 0, -1, false, lines)
    new_input_area(buffer)
  end
  vim.api.nvim_set_current_buf(buffer)
  return buffer
end

function M.chat(buffer)
  return chats[buffer or vim.api.nvim_get_current_buf()]
end

-- Inserts `text` at the reply's extmark; windows whose cursor was at the end follow it.
local function insert_at_mark(buffer, mark, text)
  local row, col = unpack(vim.api.nvim_buf_get_extmark_by_id(buffer, namespace, mark, {}))
  local followers = {}
  for _, window in ipairs(vim.fn.win_findbuf(buffer)) do
    local cursor = vim.api.nvim_win_get_cursor(window)
    if cursor[1] - 1 == row and cursor[2] >= col then table.insert(followers, window) end
  end
  vim.api.nvim_buf_set_text(buffer, row, col, row, col, lines_of(text))
  local new_row, new_col = unpack(vim.api.nvim_buf_get_extmark_by_id(buffer, namespace, mark, {}))
  for _, window in ipairs(followers) do vim.api.nvim_win_set_cursor(window, { new_row + 1, new_col }) end
end

local function on_event(buffer, event)
  local chat = chats[buffer]
  if not (chat and chat.stream and vim.api.nvim_buf_is_valid(buffer)) then return end
  chat.conversation = chat.conversation or event.conversationId
  if event.type == 'message.delta' then
    insert_at_mark(buffer, chat.stream.mark, event.text)
  elseif event.type == 'message.replace' then
    -- The server's final answer differs from the deltas: it replaces the reply's text.
    local start_row, start_col = unpack(vim.api.nvim_buf_get_extmark_by_id(buffer, namespace, chat.stream.start, {}))
    local end_row, end_col = unpack(vim.api.nvim_buf_get_extmark_by_id(buffer, namespace, chat.stream.mark, {}))
    vim.api.nvim_buf_set_text(buffer, start_row, start_col, end_row, end_col, {})
    insert_at_mark(buffer, chat.stream.mark, event.text)
  elseif event.type == 'tool_call.start' then
    insert_at_mark(buffer, chat.stream.mark, '\n[tool ' .. event.name .. ' …]\n')
  elseif event.type == 'error' then
    insert_at_mark(buffer, chat.stream.mark, '\n[error: ' .. event.message .. ']')
  end
end

local function on_reply(buffer, result, failure)
  local chat = chats[buffer]
  if not (chat and chat.stream and vim.api.nvim_buf_is_valid(buffer)) then return end
  if failure then
    insert_at_mark(buffer, chat.stream.mark, '\n[error: ' .. tostring(failure.message) .. ']')
  elseif result.status ~= 'complete' then
    insert_at_mark(buffer, chat.stream.mark, '\n[' .. result.status .. (result.cancelled == true and ', cancelled' or '') .. ']')
  end
  if result then chat.conversation = result.conversationId end
  vim.api.nvim_buf_del_extmark(buffer, namespace, chat.stream.mark)
  vim.api.nvim_buf_del_extmark(buffer, namespace, chat.stream.start)
  chat.stream = nil
end

-- The text typed below the last "### You" line.
local function input_text(buffer)
  local lines = vim.api.nvim_buf_get_lines(buffer, 0, -1, false)
  local start = 1
  for index = #lines, 1, -1 do
    if lines[index] == '### You' then start = index break end
  end
  return vim.trim(table.concat(vim.list_slice(lines, start + 1), '\n')), start
end

function M.streaming(buffer)
  local chat = chats[buffer or vim.api.nvim_get_current_buf()]
  return chat ~= nil and chat.stream ~= nil
end

-- Sends the chat buffer's input and streams the reply into it.
function M.send_chat(buffer)
  buffer = buffer or vim.api.nvim_get_current_buf()
  local chat = chats[buffer]
  if chat.stream then error('llmster: a reply is still streaming; :LlmsterCancel stops it', 0) end
  local text = input_text(buffer)
  if text == '' then error('llmster: nothing to send: type below the last "### You" line', 0) end
  append(buffer, { '', '### Assistant', '' })
  local row = vim.api.nvim_buf_line_count(buffer) - 1
  local mark = vim.api.nvim_buf_set_extmark(buffer, namespace, row, 0, { right_gravity = true })
  local start = vim.api.nvim_buf_set_extmark(buffer, namespace, row, 0, { right_gravity = false })
  new_input_area(buffer)
  local params = { text = text, conversationId = chat.conversation, model = chat.model }
  chat.stream = { mark = mark, start = start }
  chat.stream.id = M.request('chat/send', params,
    function(result, failure) on_reply(buffer, result, failure) end,
    function(event) on_event(buffer, event) end)
  return chat.stream.id
end

-- :LlmsterSend: in a chat buffer, its input; elsewhere the range (or the whole buffer) into a chat.
function M.send(first, last, has_range)
  local current = vim.api.nvim_get_current_buf()
  if chats[current] and not has_range then return M.send_chat(current) end
  local lines = vim.api.nvim_buf_get_lines(current, has_range and first - 1 or 0, has_range and last or -1, false)
  local target
  for buffer, _ in pairs(chats) do
    if vim.api.nvim_buf_is_valid(buffer) and buffer ~= current then target = buffer break end
  end
  target = target or M.open()
  append(target, lines)
  vim.api.nvim_set_current_buf(target)
  return M.send_chat(target)
end

function M.cancel(buffer)
  local chat = chats[buffer or vim.api.nvim_get_current_buf()]
  if chat and chat.stream then M.cancel_request(chat.stream.id) else vim.notify('llmster: nothing is streaming') end
end

-- Models -------------------------------------------------------------------------------------

local function size(bytes)
  if bytes >= 1e9 then return string.format('%.1f GB', bytes / 1e9) end
  return string.format('%.0f MB', bytes / 1e6)
end

function M.format_model(model)
  local features = {}
  local capabilities = isnil(model.capabilities) and {} or model.capabilities
  if capabilities.vision == true then table.insert(features, 'vision') end
  if capabilities.trained_for_tool_use == true then table.insert(features, 'tools') end
  if not isnil(capabilities.reasoning) then table.insert(features, 'reasoning') end
  return string.format('%-32s %-7s %9s  %s', model.key, model.loaded == true and 'loaded' or '',
    size(model.size_bytes or 0), table.concat(features, ', '))
end

function M.models()
  return M.request_sync('models/list', {}).models
end

-- :LlmsterModels: choose the model of the current chat.
function M.pick_model()
  local buffer = vim.api.nvim_get_current_buf()
  local models = vim.tbl_filter(function(m) return m.type == 'llm' end, M.models())
  vim.ui.select(models, { prompt = 'Model', format_item = M.format_model }, function(choice)
    if choice and chats[buffer] then chats[buffer].model = choice.key end
  end)
end

-- :LlmsterChats: the library; <CR> opens the conversation under the cursor.
function M.list_chats()
  local conversations = M.request_sync('conversations/list', {}).conversations
  local buffer = vim.api.nvim_create_buf(true, true)
  local lines, ids = {}, {}
  for _, c in ipairs(conversations) do
    local folder = isnil(c.folderPath) and '' or ('[' .. c.folderPath .. '] ')
    table.insert(lines, string.format('%s %s%s', c.pinned == true and '*' or ' ', folder, c.title ~= '' and c.title or 'Untitled'))
    table.insert(ids, c.id)
  end
  vim.api.nvim_buf_set_lines(buffer, 0, -1, false, lines)
  vim.api.nvim_buf_set_option(buffer, 'modifiable', false)
  vim.b[buffer].llmster_ids = ids
  vim.api.nvim_buf_set_keymap(buffer, 'n', '<CR>', '', {
    noremap = true,
    callback = function()
      local id = ids[vim.api.nvim_win_get_cursor(0)[1]]
      if id then M.open(id) end
    end,
  })
  vim.api.nvim_set_current_buf(buffer)
  return buffer
end

return M
