-- llmster.nvim: chat with LM Studio models through `llmster rpc` (see llmster-rpc(7) and :help llmster).
-- Neovim 0.7+, no dependencies.
local client = require('llmster.client')

local M = {}

local isnil = client.isnil
-- vim.loop is vim.uv from Neovim 0.10 on.

-- The options of setup(); :help llmster-setup describes each.
M.config = {
  cmd = { 'llmster' },
  coalesce_ms = 50,
  timeout = 60,
  fold_reasoning = true,
  prompt_fresh_context = true,
  -- The folder of the conversations :LlmsterRewrite makes (nil: the top level).
  rewrite_folder = 'Rewrites',
  -- The model :LlmsterRewrite asks (nil: llmster's default model).
  rewrite_model = nil,
  -- The preset (`preset.NAME.…` in llmster's config) a new chat starts with (nil: none).
  default_preset = nil,
  keymaps = {
    send = { n = '<CR>', i = '<C-s>' },
    cancel = '<C-c>',
    regenerate = '<LocalLeader>r',
    edit_last = '<LocalLeader>e',
    alternatives = '<LocalLeader>v',
    fresh = '<LocalLeader>f',
    toggle_folds = '<LocalLeader>z',
    actions = '<LocalLeader>a',
    accept = 'ga',
    reject = 'gr',
  },
}

function M.setup(options)
  M.config = vim.tbl_deep_extend('force', M.config, options or {})
  client.config.cmd = M.config.cmd
  client.config.coalesce_ms = M.config.coalesce_ms
  client.config.timeout = M.config.timeout
end

M.start, M.stop, M.running = client.start, client.stop, client.running
M.request, M.request_sync, M.cancel_request = client.request, client.request_sync, client.cancel_request

local namespace = vim.api.nvim_create_namespace('llmster')
local indicator_namespace = vim.api.nvim_create_namespace('llmster_indicator')
local context_namespace = vim.api.nvim_create_namespace('llmster_context')
local edit_namespace = vim.api.nvim_create_namespace('llmster_edit')

-- buffer → { conversation, title, model, reply, folds, fold_version, context, fresh_next, edit_next, … }
local chats = {}
local last_chat = nil

local function lines_of(text)
  return vim.split(text, '\n', { plain = true })
end

local function position(buffer, mark)
  return unpack(vim.api.nvim_buf_get_extmark_by_id(buffer, namespace, mark, {}))
end

local function mark_at(buffer, row, col, right_gravity)
  return vim.api.nvim_buf_set_extmark(buffer, namespace, row, col, { right_gravity = right_gravity })
end

local function all_lines(buffer)
  return vim.api.nvim_buf_get_lines(buffer, 0, -1, false)
end

-- The 0-based row of the last line equal to `header`, at or before `before` (0-based, exclusive).
local function last_header(buffer, header, before)
  local lines = all_lines(buffer)
  for index = math.min(before or #lines, #lines), 1, -1 do
    if lines[index] == header then return index - 1 end
  end
  return nil
end

-- The text typed below the last "### You" line, and that line's 0-based row.
local function input_text(buffer)
  local row = last_header(buffer, '### You') or -1
  local lines = vim.api.nvim_buf_get_lines(buffer, row + 1, -1, false)
  return vim.trim(table.concat(lines, '\n')), row
end

local function new_input_area(buffer)
  vim.api.nvim_buf_set_lines(buffer, -1, -1, false, { '', '### You', '' })
end

-- What the REPL calls reasoning that took `seconds` (not a number: unknown): "Thought for 4.2 s", tenths
-- rounded half up as the REPL rounds them, or "Reasoning".
local function reasoning_label(seconds)
  if type(seconds) ~= 'number' then return 'Reasoning' end
  return string.format('Thought for %.1f s', math.floor(seconds * 10 + 0.5) / 10)
end

-- Folds --------------------------------------------------------------------------------------

-- Registers a fold over the rows from mark `start` to mark `stop` (a mark at column 0 ends the fold on the row before).
local function add_fold(chat, fold)
  table.insert(chat.folds, fold)
  chat.fold_version = chat.fold_version + 1
  return fold
end

-- Notes the fold's first line, by which fold_ranges recognises a fold that undo and redo displaced.
local function remember_first_line(buffer, fold)
  local first = position(buffer, fold.start)
  fold.first_line = first and vim.api.nvim_buf_get_lines(buffer, first, first + 1, false)[1]
end

local function fold_ranges(buffer, chat)
  local key = vim.api.nvim_buf_get_changedtick(buffer) .. ':' .. chat.fold_version
  if chat.fold_cache and chat.fold_cache.key == key then return chat.fold_cache.ranges end
  local ranges = {}
  for _, fold in ipairs(chat.folds) do
    local first = position(buffer, fold.start)
    local last, col = position(buffer, fold.stop)
    if first and last and col == 0 and last > first then last = last - 1 end
    -- Undo and redo do not bring marks back where they were: a fold whose first line changed is dropped.
    local intact = first and last and last >= first
      and (not fold.first_line or vim.api.nvim_buf_get_lines(buffer, first, first + 1, false)[1] == fold.first_line)
    if intact then table.insert(ranges, { first + 1, last + 1, fold }) end
  end
  chat.fold_cache = { key = key, ranges = ranges }
  return ranges
end

-- 'foldexpr' of chat windows: reasoning and tool output are folds of level 1.
function M.foldexpr(lnum)
  local buffer = vim.api.nvim_get_current_buf()
  local chat = chats[buffer]
  if not chat then return 0 end
  for _, range in ipairs(fold_ranges(buffer, chat)) do
    if lnum == range[1] then return '>1' end
    if lnum > range[1] and lnum <= range[2] then return 1 end
  end
  return 0
end

-- 'foldtext' of chat windows: the fold's one-line summary, such as "▸ Thought for 4.2 s".
function M.foldtext()
  local buffer = vim.api.nvim_get_current_buf()
  local chat = chats[buffer]
  if chat then
    for _, range in ipairs(fold_ranges(buffer, chat)) do
      if range[1] == vim.v.foldstart then
        local summary = range[3].summary
        if type(summary) == 'function' then summary = summary() end
        local count = vim.v.foldend - vim.v.foldstart + 1
        return string.format('%s (%d %s)', summary, count, count == 1 and 'line' or 'lines')
      end
    end
  end
  return vim.fn.foldtext()
end

-- The folds of a chat as { first row, last row (1-based), summary } (the summary is what a closed fold shows).
function M.folds(buffer)
  buffer = buffer or vim.api.nvim_get_current_buf()
  local chat = chats[buffer]
  local result = {}
  for _, range in ipairs(chat and fold_ranges(buffer, chat) or {}) do
    local summary = range[3].summary
    table.insert(result, { range[1], range[2], type(summary) == 'function' and summary() or summary })
  end
  return result
end

local foldexpr = "v:lua.require'llmster'.foldexpr(v:lnum)"

-- Sets up a window showing a chat; one that already showed it keeps its folds as the user left them.
local function setup_window(window)
  vim.api.nvim_win_call(window, function()
    if vim.wo.foldexpr == foldexpr and vim.wo.foldmethod == 'expr' then return end
    vim.opt_local.foldmethod = 'expr'
    vim.opt_local.foldexpr = foldexpr
    vim.opt_local.foldtext = "v:lua.require'llmster'.foldtext()"
    vim.opt_local.foldminlines = 0
    vim.opt_local.foldenable = M.config.fold_reasoning
    vim.opt_local.foldlevel = 0
    vim.opt_local.wrap = true
    vim.opt_local.linebreak = true
  end)
end

-- Makes the windows of `buffer` evaluate 'foldexpr' again (a fold added over existing lines).
local function refresh_folds(buffer)
  for _, window in ipairs(vim.fn.win_findbuf(buffer)) do
    vim.api.nvim_win_call(window, function() vim.opt_local.foldexpr = vim.wo.foldexpr end)
  end
end

-- Opens every reasoning and tool-output fold in the windows of the chat, or closes them all again.
function M.toggle_folds(buffer)
  buffer = buffer or vim.api.nvim_get_current_buf()
  for _, window in ipairs(vim.fn.win_findbuf(buffer)) do
    vim.api.nvim_win_call(window, function()
      vim.opt_local.foldlevel = vim.wo.foldlevel == 0 and 1 or 0
    end)
  end
end

-- Streaming ----------------------------------------------------------------------------------

local function set_indicator(buffer, reply, text)
  if not vim.api.nvim_buf_is_valid(buffer) then return end
  local row = position(buffer, reply.header)
  if not row then return end
  if text then
    reply.indicator = vim.api.nvim_buf_set_extmark(buffer, indicator_namespace, row, 0,
      { id = reply.indicator, virt_text = { { '  ' .. text, 'Comment' } }, virt_text_pos = 'eol' })
    reply.indicator_text = text
  elseif reply.indicator then
    vim.api.nvim_buf_del_extmark(buffer, indicator_namespace, reply.indicator)
    reply.indicator, reply.indicator_text = nil, nil
  end
end

-- Whether the reply's "### Assistant" line is still where it was: undo, or deleting it, takes the exchange away.
local function intact(buffer, reply)
  local header, finish = position(buffer, reply.header), position(buffer, reply.finish)
  local count = vim.api.nvim_buf_line_count(buffer)
  return header ~= nil and finish ~= nil and header < count and finish < count
    and vim.api.nvim_buf_get_lines(buffer, header, header + 1, false)[1] == '### Assistant'
end

-- Stops showing a reply whose exchange the user took away: it is cancelled, and the library keeps what arrived.
local function detach(buffer, reply)
  reply.detached = true
  client.cancel_request(reply.id)
  if reply.chat.reply == reply then reply.chat.reply = nil end
  set_indicator(buffer, reply, nil)
  client.notify('undo took the streaming reply away, so it is cancelled (the library keeps it: reopen the chat to see it)',
    vim.log.levels.WARN)
end

-- Runs `change` in `buffer` as part of the reply's undo step, unless the user changed the buffer since.
-- Windows whose cursor sat at the reply's end follow it. A reply whose exchange the user took away is detached
-- instead; one that an undo cut short is drawn again from the library when it ends.
local function write(buffer, reply, change)
  if reply.detached then return end
  if not intact(buffer, reply) then return detach(buffer, reply) end
  local undone = vim.api.nvim_buf_call(buffer, function() return reply.change ~= nil and vim.fn.changenr() < reply.change end)
  if undone then reply.redraw = true end
  local row, col = position(buffer, reply.finish)
  local followers = {}
  for _, window in ipairs(vim.fn.win_findbuf(buffer)) do
    local cursor = vim.api.nvim_win_get_cursor(window)
    if cursor[1] - 1 == row and cursor[2] + 1 >= col then table.insert(followers, window) end
  end
  vim.api.nvim_buf_call(buffer, function()
    if reply.tick == vim.api.nvim_buf_get_changedtick(buffer) then pcall(vim.cmd, 'undojoin') end
    change()
    reply.change = vim.fn.changenr()
  end)
  reply.tick = vim.api.nvim_buf_get_changedtick(buffer)
  local new_row, new_col = position(buffer, reply.finish)
  for _, window in ipairs(followers) do pcall(vim.api.nvim_win_set_cursor, window, { new_row + 1, new_col }) end
end

local function insert(buffer, reply, text)
  local row, col = position(buffer, reply.finish)
  vim.api.nvim_buf_set_text(buffer, row, col, row, col, lines_of(text))
end

-- Ends `segment` at (row, col), moving its fold's end along.
local function set_segment_stop(buffer, reply, segment, row, col)
  segment.stop = mark_at(buffer, row, col, false)
  if segment.fold then
    segment.fold.stop = segment.stop
    remember_first_line(buffer, segment.fold)
  end
  reply.chat.fold_version = reply.chat.fold_version + 1
end

-- Fixes the end of the reply's last segment where the reply ends now.
local function end_segment(buffer, reply)
  local segment = reply.segments[#reply.segments]
  if not (segment and segment.open) then return end
  segment.open = false
  local row, col = position(buffer, reply.finish)
  set_segment_stop(buffer, reply, segment, row, col)
end

-- Ends the reply's last segment: later text starts after a blank line.
local function close_segment(buffer, reply)
  if #reply.segments == 0 then return end
  end_segment(buffer, reply)
  local row, col = position(buffer, reply.finish)
  local above = row > 0 and vim.api.nvim_buf_get_lines(buffer, row - 1, row, false)[1]
  if col > 0 then
    insert(buffer, reply, '\n\n')
  elseif above ~= '' then
    insert(buffer, reply, '\n')
  end
  reply.chat.fold_version = reply.chat.fold_version + 1
end

local function open_segment(buffer, reply, kind)
  if #reply.segments > 0 then close_segment(buffer, reply) end
  local row, col = position(buffer, reply.finish)
  local segment = { kind = kind, open = true, start = mark_at(buffer, row, col, false) }
  table.insert(reply.segments, segment)
  return segment
end

local function reasoning_summary(segment)
  return function()
    if segment.open and not segment.seconds then return '▸ Thinking…' end
    return '▸ ' .. reasoning_label(segment.seconds)
  end
end

-- Appends streamed text of `kind` (reasoning or message) to the reply.
local function append(buffer, reply, kind, text)
  local last = reply.segments[#reply.segments]
  if not (last and last.open and last.kind == kind) then
    -- The engine separates answer segments with blank lines; the segments here already are.
    if last then text = text:gsub('^\n+', '') end
    if text == '' then return end
    last = open_segment(buffer, reply, kind)
    if kind == 'reasoning' then
      last.fold = add_fold(reply.chat, { start = last.start, stop = reply.finish, summary = reasoning_summary(last) })
    end
  end
  insert(buffer, reply, text)
end

-- Replaces the text of a segment with `lines`.
local function replace_segment(buffer, reply, segment, lines)
  local row, col = position(buffer, segment.start)
  local end_row, end_col = position(buffer, segment.stop or reply.finish)
  vim.api.nvim_buf_set_text(buffer, row, col, end_row, end_col, lines)
  if segment.stop then
    vim.api.nvim_buf_del_extmark(buffer, namespace, segment.stop)
    set_segment_stop(buffer, reply, segment, row + #lines - 1, (#lines == 1 and col or 0) + #lines[#lines])
  end
end

-- Replaces what the deltas of `kind` built with the server's final `text`.
local function replace(buffer, reply, kind, text)
  local matching = vim.tbl_filter(function(s) return s.kind == kind end, reply.segments)
  if #matching == 0 then return append(buffer, reply, kind, text) end
  for index, segment in ipairs(matching) do
    replace_segment(buffer, reply, segment, index == #matching and lines_of(text) or { '' })
  end
end

local function single_line(value)
  if isnil(value) then return '' end
  local text = type(value) == 'string' and value or vim.json.encode(value):gsub('\\/', '/')
  return (text:gsub('\n', ' '))
end

-- The lines of a tool call: a header with name, arguments and status, then its output.
local function tool_lines(call)
  local status = call.status or 'running'
  if status == 'succeeded' or status == 'success' then status = 'done' end
  local header = string.format('⚙ %s(%s) · %s', call.name or '?', single_line(call.arguments), status)
  local reason = call.reason or call.failureReason
  if not isnil(reason) then header = header .. ': ' .. single_line(reason) end
  local lines = { header }
  if not isnil(call.output) and call.output ~= '' then vim.list_extend(lines, lines_of(call.output)) end
  return lines
end

local function tool_summary(call)
  return function() return '▸ output of ' .. (call.name or 'the tool') end
end

local function on_tool_call(buffer, reply, event)
  local segment = reply.tools[event.index]
  local call = { name = event.name, arguments = event.arguments, status = event.status, output = event.output, reason = event.reason }
  if event.type == 'tool_call.failure' then call.status = 'failed' end
  if not segment then
    segment = open_segment(buffer, reply, 'tool')
    reply.tools[event.index] = segment
    insert(buffer, reply, table.concat(tool_lines(call), '\n'))
    end_segment(buffer, reply)
  else
    replace_segment(buffer, reply, segment, tool_lines(call))
  end
  if not isnil(call.output) and call.output ~= '' and not segment.fold then
    local row = position(buffer, segment.start)
    segment.fold = add_fold(reply.chat, { start = mark_at(buffer, row + 1, 0, false), stop = segment.stop, summary = tool_summary(call) })
    remember_first_line(buffer, segment.fold)
    refresh_folds(buffer)
  end
end

-- The progress shown beside the streaming reply's header ("loading model 40%", "streaming…"), or nil.
function M.indicator(buffer)
  local chat = chats[buffer or vim.api.nvim_get_current_buf()]
  return chat and chat.reply and chat.reply.indicator_text or nil
end

local function percent(value)
  return string.format('%d%%', math.floor((tonumber(value) or 0) * 100 + 0.5))
end

local function on_event(buffer, reply, event)
  local chat = chats[buffer]
  if not (chat and chat.reply == reply and vim.api.nvim_buf_is_valid(buffer)) then return end
  if not isnil(event.conversationId) then chat.conversation = chat.conversation or event.conversationId end
  local kind = event.type
  if kind == 'model_load.progress' then
    set_indicator(buffer, reply, 'loading model ' .. percent(event.progress))
  elseif kind == 'prompt_processing.progress' then
    set_indicator(buffer, reply, 'processing prompt ' .. percent(event.progress))
  elseif kind == 'message.delta' or kind == 'reasoning.delta' then
    set_indicator(buffer, reply, kind == 'reasoning.delta' and 'thinking…' or 'streaming…')
    write(buffer, reply, function() append(buffer, reply, kind == 'message.delta' and 'message' or 'reasoning', event.text) end)
  elseif kind == 'reasoning.end' then
    -- The engine's time of the reasoning so far labels the latest reasoning.
    for index = #reply.segments, 1, -1 do
      if reply.segments[index].kind == 'reasoning' then
        reply.segments[index].seconds = event.seconds
        break
      end
    end
  elseif kind == 'message.replace' or kind == 'reasoning.replace' then
    write(buffer, reply, function() replace(buffer, reply, kind == 'message.replace' and 'message' or 'reasoning', event.text) end)
  elseif kind:match('^tool_call%.') then
    set_indicator(buffer, reply, 'running ' .. tostring(event.name) .. '…')
    write(buffer, reply, function() on_tool_call(buffer, reply, event) end)
  elseif kind == 'error' then
    reply.errored = true
    write(buffer, reply, function()
      open_segment(buffer, reply, 'note')
      insert(buffer, reply, '[error: ' .. single_line(event.message) .. ']')
    end)
  end
end

-- Forgets the reply's marks and moves followers to the input area.
local function finish_reply(buffer, chat)
  local reply = chat.reply
  chat.reply = nil
  set_indicator(buffer, reply, nil)
  end_segment(buffer, reply)
  local row = position(buffer, reply.finish)
  local last = vim.api.nvim_buf_line_count(buffer)
  for _, window in ipairs(vim.fn.win_findbuf(buffer)) do
    if vim.api.nvim_win_get_cursor(window)[1] - 1 == row then vim.api.nvim_win_set_cursor(window, { last, 0 }) end
  end
end

local function rename_buffer(buffer, title)
  if not vim.api.nvim_buf_is_valid(buffer) then return end
  local base = 'llmster: ' .. (title ~= '' and title or 'new chat')
  local name, number = base, 1
  while true do
    local existing = vim.fn.bufnr('^' .. vim.fn.escape(name, '^$.*~[]\\/') .. '$')
    if existing == -1 or existing == buffer then break end
    number = number + 1
    name = string.format('%s (%d)', base, number)
  end
  pcall(vim.api.nvim_buf_set_name, buffer, name)
end

-- Keeps the buffer name in step with the conversation's title, which llmster may change after any reply.
local function learn_title(buffer, chat)
  if not chat.conversation then return end
  client.request('conversations/get', { id = chat.conversation }, function(result)
    if result and chats[buffer] == chat then
      chat.model = chat.model or (not isnil(result.conversation.modelKey) and result.conversation.modelKey or nil)
      local title = not isnil(result.conversation.title) and result.conversation.title or ''
      if title ~= chat.title then
        chat.title = title
        rename_buffer(buffer, title)
      end
    end
  end)
end

local function put_prompt_back(buffer, reply)
  local row = position(buffer, reply.prompt)
  if not row then return end
  vim.api.nvim_buf_set_lines(buffer, row, -1, false, reply.prompt_lines)
end

local function offer_fresh_context(buffer)
  if not M.config.prompt_fresh_context then return end
  vim.schedule(function()
    vim.cmd('redraw')
    vim.ui.select({ 'Resend with a fresh server context', 'Not now' },
      { prompt = 'LM Studio no longer has this conversation\'s context (it restarted?)' }, function(_, index)
        if index == 1 and chats[buffer] then client.guard(M.fresh, buffer) end
      end)
  end)
end

-- Shows the chat's conversation again from the library (defined with the alternatives).
local redraw

local function on_reply(buffer, reply, result, failure)
  local chat = chats[buffer]
  if not (chat and chat.reply == reply and vim.api.nvim_buf_is_valid(buffer)) then return end
  if result then
    if not M.model_cache then
      client.request('models/list', { refresh = false }, function(models) M.model_cache = models and models.models end)
    end
    chat.conversation = result.conversationId
    chat.stats = not isnil(result.message) and not isnil(result.message.stats) and result.message.stats or chat.stats
  end
  local kind = failure and not isnil(failure.data) and failure.data.kind
  if failure and reply.created and kind ~= 'continuation_lost' then
    finish_reply(buffer, chat)
    put_prompt_back(buffer, reply)
    -- The conversation made with the preset goes too (no Untitled one is left); the next try makes it again.
    if reply.preset then
      client.request('conversations/delete', { id = chat.conversation })
      chat.conversation, chat.preset = nil, reply.preset
    end
    client.notify(tostring(failure.message) .. ' (your message is back in the input area)')
  else
    local note
    if failure then
      if kind == 'not_found' then
        failure = { message = 'this conversation is no longer in the library (deleted?); :Llmster starts a new chat' }
      end
      note = '[error: ' .. single_line(failure.message) .. ']'
      if kind == 'continuation_lost' then
        chat.fresh_next = true
        note = note .. ' :LlmsterFresh resends it with a fresh server context'
      end
      -- The fresh-context prompt says it already; a second message would only ask for Enter first.
      if kind ~= 'continuation_lost' or not M.config.prompt_fresh_context then client.notify(failure.message) end
    elseif result.status ~= 'complete' and not (result.status == 'error' and reply.errored) then
      note = '[' .. result.status .. (result.cancelled == true and ', cancelled' or '') .. ']'
    end
    if note then
      write(buffer, reply, function()
        open_segment(buffer, reply, 'note')
        insert(buffer, reply, note)
      end)
    end
    if reply.detached then return end
    finish_reply(buffer, chat)
    if reply.redraw and chat.conversation then
      redraw(buffer, chat)
      client.notify('undo changed the reply as it streamed: the chat is shown again from the library', vim.log.levels.INFO)
    end
    if kind == 'continuation_lost' then offer_fresh_context(buffer) end
  end
  if result then chat.fresh_next = nil end
  learn_title(buffer, chat)
  vim.api.nvim_exec_autocmds('User', { pattern = 'LlmsterReply', modeline = false })
end

-- Chat buffers -------------------------------------------------------------------------------

-- Keeps the chat's unsent input as its conversation's draft; with `wait`, returns once llmster saved it.
local function save_draft(buffer, wait)
  local chat = chats[buffer]
  if not (chat and chat.conversation and vim.api.nvim_buf_is_loaded(buffer)) then return end
  local text = input_text(buffer)
  if text ~= (chat.draft or '') then
    chat.draft = text
    local params = { conversationId = chat.conversation, text = text }
    if wait then client.request_sync('drafts/set', params) else client.request('drafts/set', params) end
  end
end

-- Before Neovim exits, every chat's draft is saved (llmster rpc stops as soon as its input ends).
vim.api.nvim_create_autocmd('VimLeavePre', {
  group = vim.api.nvim_create_augroup('llmster_drafts', { clear = true }),
  callback = function()
    if not client.running() then return end
    for buffer in pairs(chats) do pcall(save_draft, buffer, true) end
  end,
})

local function map(buffer, modes, lhs, action, desc)
  if not lhs then return end
  for _, mode in ipairs(modes) do
    vim.api.nvim_buf_set_keymap(buffer, mode, lhs, '', {
      noremap = true, silent = true, desc = desc,
      callback = function() client.guard(action, buffer) end,
    })
  end
end

local function chat_keymaps(buffer)
  local keys = M.config.keymaps or {}
  local send = keys.send
  if type(send) == 'table' then
    map(buffer, { 'n' }, send.n, M.send_chat, 'llmster: send')
    -- Sending from insert mode leaves it, so the cursor can follow the reply rather than type into it.
    map(buffer, { 'i' }, send.i, function(target)
      vim.cmd('stopinsert')
      M.send_chat(target)
    end, 'llmster: send')
  else
    map(buffer, { 'n' }, send, M.send_chat, 'llmster: send')
  end
  map(buffer, { 'n' }, keys.cancel, M.cancel, 'llmster: cancel the reply')
  map(buffer, { 'n' }, keys.regenerate, M.regenerate, 'llmster: regenerate the last answer')
  map(buffer, { 'n' }, keys.edit_last, M.edit_last, 'llmster: edit the last message')
  map(buffer, { 'n' }, keys.alternatives, M.pick_alternative, 'llmster: choose an alternative of the last message')
  map(buffer, { 'n' }, keys.fresh, M.fresh, 'llmster: resend with a fresh server context')
  map(buffer, { 'n' }, keys.toggle_folds, M.toggle_folds, 'llmster: show or hide reasoning and tool output')
  map(buffer, { 'n' }, keys.actions, function() M.actions() end, 'llmster: actions')
end

local function new_chat_buffer()
  local buffer = vim.api.nvim_create_buf(true, true)
  vim.bo[buffer].filetype = 'markdown'
  vim.bo[buffer].bufhidden = 'hide'
  chats[buffer] = { folds = {}, fold_version = 0, context = {} }
  local group = vim.api.nvim_create_augroup('llmster_chat_' .. buffer, { clear = true })
  vim.api.nvim_create_autocmd('BufWinEnter', {
    group = group, buffer = buffer,
    callback = function() setup_window(vim.api.nvim_get_current_win()) end,
  })
  vim.api.nvim_create_autocmd('BufLeave', { group = group, buffer = buffer, callback = function() save_draft(buffer) end })
  vim.api.nvim_create_autocmd('BufEnter', { group = group, buffer = buffer, callback = function() last_chat = buffer end })
  vim.api.nvim_create_autocmd('BufUnload', {
    group = group, buffer = buffer,
    callback = function()
      save_draft(buffer)
      local chat = chats[buffer]
      chats[buffer] = nil
      if chat and chat.reply then client.cancel_request(chat.reply.id) end
      pcall(vim.api.nvim_del_augroup_by_id, group)
    end,
  })
  chat_keymaps(buffer)
  return buffer
end

local function show(buffer)
  vim.api.nvim_set_current_buf(buffer)
  setup_window(vim.api.nvim_get_current_win())
end

-- Renders saved messages as the lines of a transcript, with folds for reasoning and tool output.
local function render_messages(buffer, chat, messages)
  local lines, folds = {}, {}
  local function add(more) vim.list_extend(lines, more) end
  for _, message in ipairs(messages) do
    if message.role == 'user' then
      add({ '### You' })
      add(lines_of(message.text or ''))
    else
      add({ '### Assistant' })
      -- The reply's reasoning, text and tool calls in the server's order, as llmster cut them.
      local calls = isnil(message.toolCalls) and {} or message.toolCalls
      local parts = vim.tbl_filter(function(part)
        if part.kind == 'tool' then return type(part.index) == 'number' and calls[part.index + 1] ~= nil end
        return (part.kind == 'reasoning' or part.kind == 'text') and type(part.text) == 'string'
      end, isnil(message.parts) and {} or message.parts)
      for index, part in ipairs(parts) do
        local first = #lines
        if part.kind == 'tool' then
          local call = calls[part.index + 1]
          local call_lines = tool_lines(call)
          -- Output ending in a newline: the blank line after the part is enough.
          if #call_lines > 1 and call_lines[#call_lines] == '' then table.remove(call_lines) end
          add(call_lines)
          if #call_lines > 1 then table.insert(folds, { first + 1, #lines - 1, '▸ output of ' .. tostring(call.name) }) end
        elseif part.kind == 'reasoning' then
          add(lines_of((part.text:gsub('\n+$', ''))))
          table.insert(folds, { first, #lines - 1, '▸ ' .. reasoning_label(part.seconds) })
        else
          add(lines_of(index == #parts and part.text or (part.text:gsub('\n+$', ''))))
        end
        if index < #parts then add({ '' }) end
      end
      if #parts == 0 or parts[#parts].kind ~= 'text' then add({ '' }) end
      if message.status ~= 'complete' then
        local reason = not isnil(message.error) and message.error ~= '' and (': ' .. single_line(message.error)) or ''
        add({ '[' .. tostring(message.status) .. reason .. ']' })
      end
    end
    add({ '' })
  end
  add({ '### You' })
  vim.api.nvim_buf_set_lines(buffer, 0, -1, false, lines)
  for _, fold in ipairs(folds) do
    add_fold(chat, { start = mark_at(buffer, fold[1], 0, false), stop = mark_at(buffer, fold[2] + 1, 0, false), summary = fold[3],
      first_line = lines[fold[1] + 1] })
  end
end

-- Opens a chat buffer: a new conversation, or the saved one `conversation_id` (an id, id prefix or title).
function M.open(conversation_id)
  client.start()
  local answer = conversation_id and client.request_sync('conversations/get', { id = conversation_id })
  for buffer, chat in pairs(answer and chats or {}) do
    if chat.conversation == answer.conversation.id then
      show(buffer)
      return buffer
    end
  end
  local buffer = new_chat_buffer()
  local chat = chats[buffer]
  -- The transcript is where undo starts, not a change to undo.
  vim.bo[buffer].undolevels = -1
  if answer then
    local conversation = answer.conversation
    chat.conversation, chat.title = conversation.id, conversation.title or ''
    chat.model = not isnil(conversation.modelKey) and conversation.modelKey or nil
    render_messages(buffer, chat, answer.messages)
    chat.draft = not isnil(conversation.draft) and conversation.draft or ''
    vim.api.nvim_buf_set_lines(buffer, -1, -1, false, chat.draft ~= '' and lines_of(chat.draft) or { '' })
  else
    chat.preset = M.config.default_preset
    vim.api.nvim_buf_set_lines(buffer, 0, -1, false, { '### You', '' })
  end
  -- -123456 is "use the global value" for this global-local option.
  vim.bo[buffer].undolevels = -123456
  rename_buffer(buffer, chat.title or '')
  show(buffer)
  vim.api.nvim_win_set_cursor(0, { vim.api.nvim_buf_line_count(buffer), 0 })
  return buffer
end

function M.chat(buffer)
  return chats[buffer or vim.api.nvim_get_current_buf()]
end

function M.streaming(buffer)
  local chat = chats[buffer or vim.api.nvim_get_current_buf()]
  return chat ~= nil and chat.reply ~= nil
end

local function require_chat(buffer)
  local chat = chats[buffer]
  if not chat then error('not a chat buffer: :Llmster opens one, :LlmsterSend from another buffer sends it to a chat', 0) end
  if chat.reply then error('a reply is still streaming; :LlmsterCancel stops it', 0) end
  return chat
end

-- Shows beside the input header that the next send replaces the last message (or, without `text`, nothing).
local function show_edit(buffer, text)
  vim.api.nvim_buf_clear_namespace(buffer, edit_namespace, 0, -1)
  local row = text and last_header(buffer, '### You')
  if row then
    vim.api.nvim_buf_set_extmark(buffer, edit_namespace, row, 0, { virt_text = { { '  ' .. text, 'WarningMsg' } }, virt_text_pos = 'eol' })
  end
end

-- Expands `#buffer` (the alternate buffer) and `/file PATH` lines of the input, and the attached context.
local function expand_input(chat, text)
  local blocks = {}
  for _, item in ipairs(chat.context) do table.insert(blocks, M.fence(item.name, item.filetype, item.lines())) end
  local kept = {}
  for _, line in ipairs(lines_of(text)) do
    local path = line:match('^/file%s+(.+)$')
    if line == '#buffer' then
      local alternate = vim.fn.bufnr('#')
      if alternate > 0 and not chats[alternate] then table.insert(blocks, M.fence_buffer(alternate)) end
    elseif path then
      table.insert(blocks, M.fence_file(vim.fn.expand(vim.trim(path))))
    else
      table.insert(kept, line)
    end
  end
  chat.context = {}
  M.show_context(chat)
  local prompt = vim.trim(table.concat(kept, '\n'))
  if #blocks == 0 then return prompt end
  return table.concat(blocks, '\n\n') .. '\n\n' .. prompt
end

-- Sends the chat's input (or, with `options.retry`, asks again for the last answer) and streams the reply.
-- `options`: retry, fresh (a fresh server context), edit (replace the last user message).
function M.send_chat(buffer, options)
  buffer = (buffer and buffer ~= 0) and buffer or vim.api.nvim_get_current_buf()
  options = options or {}
  local chat = require_chat(buffer)
  local text, input_row = input_text(buffer)
  if not options.retry and text == '' and #chat.context == 0 then
    error('nothing to send: type below the last "### You" line', 0)
  end
  if options.retry and not chat.conversation then error('nothing to regenerate yet', 0) end
  local edit = options.edit or chat.edit_next
  local prompt_lines = vim.api.nvim_buf_get_lines(buffer, input_row, -1, false)
  local created, preset = chat.conversation == nil, nil
  if created and chat.preset then
    chat.conversation = client.request_sync('conversations/create',
      { preset = chat.preset, systemPrompt = chat.system_prompt, reasoning = chat.reasoning }).id
    preset, chat.preset = chat.preset, nil
  end
  local params = {
    conversationId = chat.conversation, model = chat.model,
    freshContext = (options.fresh or chat.fresh_next) and true or nil,
    systemPrompt = not chat.conversation and chat.system_prompt or nil,
    integrations = not chat.conversation and chat.integrations or nil,
    reasoning = not chat.conversation and chat.reasoning or nil,
  }
  -- A cursor left at the end of the input follows the reply.
  local count = vim.api.nvim_buf_line_count(buffer)
  local followers = vim.tbl_filter(function(window)
    return vim.api.nvim_win_get_cursor(window)[1] == count
  end, vim.fn.win_findbuf(buffer))
  local header
  if options.retry then
    params.retry = true
    header = last_header(buffer, '### Assistant', input_row) or input_row
    vim.api.nvim_buf_set_lines(buffer, header, input_row, false, { '### Assistant', '', '' })
  else
    params.text = expand_input(chat, text)
    if edit then
      params.edit = true
      local previous = last_header(buffer, '### You', input_row)
      if previous then
        vim.api.nvim_buf_set_lines(buffer, previous, input_row, false, {})
        input_row = previous
      end
    end
    vim.api.nvim_buf_set_lines(buffer, -1, -1, false, { '', '### Assistant', '' })
    header = vim.api.nvim_buf_line_count(buffer) - 2
    new_input_area(buffer)
  end
  chat.edit_next = nil
  show_edit(buffer, nil)
  local reply = {
    chat = chat, segments = {}, tools = {}, created = created, preset = preset,
    header = mark_at(buffer, header, 0, false),
    finish = mark_at(buffer, header + 1, 0, true),
    prompt = mark_at(buffer, input_row, 0, false), prompt_lines = prompt_lines,
  }
  reply.tick = vim.api.nvim_buf_get_changedtick(buffer)
  for _, window in ipairs(followers) do vim.api.nvim_win_set_cursor(window, { header + 2, 0 }) end
  chat.reply = reply
  set_indicator(buffer, reply, 'waiting…')
  local sent, id = pcall(client.request, 'chat/send', params,
    function(result, failure) on_reply(buffer, reply, result, failure) end,
    function(event) on_event(buffer, reply, event) end)
  if not sent then
    finish_reply(buffer, chat)
    put_prompt_back(buffer, reply)
    error(id, 0)
  end
  reply.id = id
  return id
end

-- Asks again for an answer to the last message; the old answer stays in the library as an alternative.
function M.regenerate(buffer)
  return M.send_chat(buffer, { retry = true })
end

-- Resends the last message with a fresh server context (after LM Studio lost the conversation's context).
function M.fresh(buffer)
  return M.send_chat(buffer, { retry = true, fresh = true })
end

-- Whether the next send of the chat replaces its last message.
function M.editing(buffer)
  local chat = chats[buffer or vim.api.nvim_get_current_buf()]
  return chat ~= nil and chat.edit_next ~= nil
end

-- Puts the last message in the input area; the next send replaces it (the old turn becomes an alternative).
-- Unsent text in the input is replaced only when the user agrees; :LlmsterCancel brings it back.
function M.edit_last(buffer)
  buffer = (buffer and buffer ~= 0) and buffer or vim.api.nvim_get_current_buf()
  local chat = require_chat(buffer)
  local typed, input_row = input_text(buffer)
  local previous = last_header(buffer, '### You', input_row)
  local answer = previous and last_header(buffer, '### Assistant', input_row)
  if not previous or not answer or answer < previous then error('there is no sent message to edit', 0) end
  local lines = vim.api.nvim_buf_get_lines(buffer, previous + 1, answer, false)
  while #lines > 0 and lines[#lines] == '' do table.remove(lines) end
  while #lines > 0 and lines[1] == '' do table.remove(lines, 1) end
  local function edit()
    local _, row = input_text(buffer)
    local displaced = chat.edit_next or vim.api.nvim_buf_get_lines(buffer, row + 1, -1, false)
    vim.api.nvim_buf_set_lines(buffer, row + 1, -1, false, lines)
    chat.edit_next = displaced
    show_edit(buffer, 'editing the last message: sending replaces it, :LlmsterCancel leaves')
    vim.api.nvim_win_set_cursor(0, { vim.api.nvim_buf_line_count(buffer), 0 })
  end
  if chat.edit_next or typed == '' then return edit() end
  vim.ui.select({ 'Replace it with the last message', 'Keep it' }, { prompt = 'The input holds unsent text' }, function(_, index)
    if index == 1 and chats[buffer] == chat and not chat.reply then client.guard(edit) end
  end)
end

-- Stops editing the last message: the input it displaced comes back.
local function leave_edit(buffer, chat)
  local _, row = input_text(buffer)
  vim.api.nvim_buf_set_lines(buffer, row + 1, -1, false, chat.edit_next)
  chat.edit_next = nil
  show_edit(buffer, nil)
  client.notify('the next send is a new message again', vim.log.levels.INFO)
end

-- The chat that text from other buffers goes to: the last chat entered, else any idle chat, else a new one.
local function chat_for_range()
  if last_chat and chats[last_chat] and not chats[last_chat].reply then return last_chat end
  for buffer, chat in pairs(chats) do
    if not chat.reply then return buffer end
  end
  return M.open()
end

-- Puts `text` into the input area of a chat (the current one, or another open chat, or a new one) and sends it.
function M.send_text(text)
  local target = chats[vim.api.nvim_get_current_buf()] and vim.api.nvim_get_current_buf() or chat_for_range()
  local _, row = input_text(target)
  vim.api.nvim_buf_set_lines(target, row + 1, -1, false, lines_of(text))
  if vim.api.nvim_get_current_buf() ~= target then show(target) end
  return M.send_chat(target)
end

-- :LlmsterSend: in a chat buffer, its input; elsewhere the range (or the whole buffer) into a chat.
function M.send(first, last, has_range)
  local current = vim.api.nvim_get_current_buf()
  if chats[current] and not has_range then return M.send_chat(current) end
  local lines = vim.api.nvim_buf_get_lines(current, has_range and first - 1 or 0, has_range and last or -1, false)
  return M.send_text(table.concat(lines, '\n'))
end

-- Cancels the streaming reply; while editing the last message, stops editing it instead.
function M.cancel(buffer)
  buffer = (buffer and buffer ~= 0) and buffer or vim.api.nvim_get_current_buf()
  local chat = chats[buffer]
  if chat and chat.reply then
    client.cancel_request(chat.reply.id)
  elseif chat and chat.edit_next then
    leave_edit(buffer, chat)
  else
    client.notify('nothing is streaming', vim.log.levels.INFO)
  end
end

-- Context and code -----------------------------------------------------------------------------

-- A fenced block holding `lines`, headed by the file name and the language.
function M.fence(name, filetype, lines)
  local longest = 2
  for _, line in ipairs(lines) do
    local ticks = line:match('^%s*(`+)')
    if ticks and #ticks > longest then longest = #ticks end
  end
  local fence = string.rep('`', longest + 1)
  local body = table.concat(lines, '\n')
  return string.format('%s:\n%s%s\n%s\n%s', name, fence, filetype or '', body, fence)
end

-- Languages whose fence name differs from the file extension (Neovim 0.7 cannot match a file name to a filetype).
local languages = { py = 'python', js = 'javascript', ts = 'typescript', rs = 'rust', md = 'markdown', txt = 'text',
  h = 'c', hpp = 'cpp', cc = 'cpp', rb = 'ruby', yml = 'yaml', kt = 'kotlin', el = 'lisp', hs = 'haskell' }

-- The language of a fence for `path`: Neovim's filetype from 0.8 on, else one from the extension.
local function filetype_of(path)
  local ok, filetype = pcall(vim.filetype.match, { filename = path })
  if ok and type(filetype) == 'string' then return filetype end
  local extension = vim.fn.fnamemodify(path, ':e')
  return languages[extension] or extension
end

function M.fence_buffer(buffer, first, last)
  local name = vim.api.nvim_buf_get_name(buffer)
  name = name ~= '' and vim.fn.fnamemodify(name, ':~:.') or ('buffer ' .. buffer)
  local filetype = vim.bo[buffer].filetype
  if filetype == '' then filetype = filetype_of(name) end
  if first then name = string.format('%s (lines %d-%d)', name, first, last) end
  local lines = vim.api.nvim_buf_get_lines(buffer, first and first - 1 or 0, last or -1, false)
  return M.fence(name, filetype, lines)
end

function M.fence_file(path)
  if vim.fn.filereadable(path) ~= 1 then error('cannot read ' .. path, 0) end
  return M.fence(vim.fn.fnamemodify(path, ':~:.'), filetype_of(path), vim.fn.readfile(path))
end

-- Shows a chat's attached context beside its input header.
function M.show_context(chat)
  local buffer
  for b, c in pairs(chats) do if c == chat then buffer = b end end
  if not buffer then return end
  vim.api.nvim_buf_clear_namespace(buffer, context_namespace, 0, -1)
  if #chat.context == 0 then return end
  local names = vim.tbl_map(function(item) return item.name end, chat.context)
  local row = last_header(buffer, '### You')
  vim.api.nvim_buf_set_extmark(buffer, context_namespace, row, 0,
    { virt_text = { { '  context: ' .. table.concat(names, ', '), 'Comment' } }, virt_text_pos = 'eol' })
end

-- Attaches a buffer (a number) or a file (a path) to a chat; it is sent with the next message.
function M.add_context(target, chat_buffer)
  local current = vim.api.nvim_get_current_buf()
  chat_buffer = chat_buffer or (chats[current] and current) or chat_for_range()
  if target == chat_buffer then
    target = vim.fn.bufnr('#')
    if target < 1 or chats[target] then error('no buffer to add: name a file, or use it from the buffer to add', 0) end
  end
  local chat = chats[chat_buffer]
  local item
  if type(target) == 'number' then
    local name = vim.api.nvim_buf_get_name(target)
    item = { name = name ~= '' and vim.fn.fnamemodify(name, ':~:.') or ('buffer ' .. target), filetype = vim.bo[target].filetype,
      lines = function() return vim.api.nvim_buf_get_lines(target, 0, -1, false) end }
  else
    local path = vim.fn.expand(target)
    if vim.fn.filereadable(path) ~= 1 then error('cannot read ' .. path, 0) end
    item = { name = vim.fn.fnamemodify(path, ':~:.'), filetype = filetype_of(path),
      lines = function() return vim.fn.readfile(path) end }
  end
  table.insert(chat.context, item)
  M.show_context(chat)
  return chat_buffer
end

-- The names of the context a chat will send with its next message.
function M.context(buffer)
  local chat = chats[buffer or vim.api.nvim_get_current_buf()]
  return chat and vim.tbl_map(function(item) return item.name end, chat.context) or {}
end

-- Settings ----------------------------------------------------------------------------------

-- Makes the next send start a fresh server context when `result` says a new system prompt needs one; says so
-- after `done` (what was done, if anything) in one message, since two in a row ask for Enter.
local function note_fresh_context(chat, result, done)
  local fresh = result.needsFreshContext == true
  if fresh then chat.fresh_next = true end
  local parts = {}
  if done then table.insert(parts, done) end
  if fresh then table.insert(parts, 'the new system prompt takes effect with a fresh server context: the next message starts one') end
  if #parts > 0 then client.notify(table.concat(parts, '; '), vim.log.levels.INFO) end
  return result
end

local function settings(buffer, params, on_unsaved)
  local chat = chats[buffer]
  if not chat then error('not a chat buffer', 0) end
  if not chat.conversation then return on_unsaved(chat) end
  params.conversationId = chat.conversation
  return note_fresh_context(chat, client.request_sync('conversations/setSettings', params))
end

-- Sets the chat's system prompt (empty: none).
function M.set_system_prompt(prompt, buffer)
  buffer = buffer or vim.api.nvim_get_current_buf()
  return settings(buffer, { systemPrompt = prompt }, function(chat) chat.system_prompt = prompt ~= '' and prompt or nil end)
end

-- Sets the chat's reasoning effort (one of the model's options; "default" clears it).
function M.set_reasoning(effort, buffer)
  buffer = buffer or vim.api.nvim_get_current_buf()
  return settings(buffer, { settings = { reasoning = effort } }, function(chat) chat.reasoning = effort ~= 'default' and effort or nil end)
end

-- Lets the chat use the configured integrations `names` (MCP servers, LM Studio plugins; {} turns them off), as the
-- REPL's /integrations does; a chat without a conversation sends them with its first message.
function M.set_integrations(names, buffer)
  buffer = (buffer and buffer ~= 0) and buffer or vim.api.nvim_get_current_buf()
  local chat = require_chat(buffer)
  local configured = vim.tbl_map(function(i) return i.name end, client.request_sync('integrations/list', {}).integrations)
  for _, name in ipairs(names) do
    if not vim.tbl_contains(configured, name) then
      error(string.format('no integration named %s; configured: %s', name, #configured > 0 and table.concat(configured, ', ')
        or 'none (add lines such as "integration.NAME = mcp/playwright" to llmster\'s config)'), 0)
    end
  end
  local said = #names > 0 and table.concat(names, ', ') or 'off'
  if not chat.conversation then
    chat.integrations = names
    return client.notify('integrations ' .. said .. ' from the first message', vim.log.levels.INFO)
  end
  -- vim.json encodes an empty Lua table as [], which turns them all off.
  local answer = client.request_sync('conversations/setIntegrations', { conversationId = chat.conversation, integrations = names })
  client.notify('integrations ' .. said .. (isnil(answer.notice) and '' or (' (' .. answer.notice .. ')')), vim.log.levels.INFO)
end

-- Alternatives: the other answers to a message, and its other versions ------------------------

-- Shows the chat's conversation again from the library, keeping the unsent input; undo starts afresh.
redraw = function(buffer, chat)
  local answer = client.request_sync('conversations/get', { id = chat.conversation })
  local _, row = input_text(buffer)
  local input = vim.api.nvim_buf_get_lines(buffer, row + 1, -1, false)
  vim.api.nvim_buf_clear_namespace(buffer, namespace, 0, -1)
  chat.folds = {}
  chat.fold_version = chat.fold_version + 1
  vim.bo[buffer].undolevels = -1
  render_messages(buffer, chat, answer.messages)
  vim.api.nvim_buf_set_lines(buffer, -1, -1, false, #input > 0 and input or { '' })
  vim.bo[buffer].undolevels = -123456
  refresh_folds(buffer)
end

-- The conversations/alternatives answer to choose from: the last message's alternatives, else (or with
-- `versions`) the versions of the last user message.
local function alternatives_of(chat, messages, versions)
  local last_user
  for index = #messages, 1, -1 do
    if messages[index].role == 'user' then last_user = messages[index] break end
  end
  local candidates = versions and { last_user } or { messages[#messages], last_user }
  for _, message in pairs(candidates) do
    local answer = client.request_sync('conversations/alternatives', { conversationId = chat.conversation, messageId = message.id })
    if #answer.alternatives > 1 then return answer end
  end
  return nil
end

-- The picker line of alternative `index` (1-based; vim.ui.select numbers the lines itself): `*` marks the shown
-- one, `current` (0-based).
function M.format_alternative(message, index, current)
  local text = vim.trim(tostring(isnil(message.text) and '' or message.text)):gsub('%s+', ' ')
  if vim.fn.strchars(text) > 72 then text = vim.fn.strcharpart(text, 0, 71) .. '…' end
  return string.format('%s %s', index - 1 == current and '*' or ' ', text)
end

-- Shows another answer to the last message, chosen with vim.ui.select among those regenerating made; when
-- the last answer has none (or with `versions`), among the versions of the last message that editing made.
function M.pick_alternative(buffer, versions)
  buffer = (buffer and buffer ~= 0) and buffer or vim.api.nvim_get_current_buf()
  local chat = require_chat(buffer)
  if not chat.conversation then error('no reply yet', 0) end
  local messages = client.request_sync('conversations/get', { id = chat.conversation }).messages
  local answer = alternatives_of(chat, messages, versions)
  if not answer then error('no alternatives yet: :LlmsterRegenerate asks again, :LlmsterEditLast edits the last message', 0) end
  local index_of = {}
  for index, message in ipairs(answer.alternatives) do index_of[message] = index end
  vim.ui.select(answer.alternatives, {
    prompt = 'Alternative',
    format_item = function(message) return M.format_alternative(message, index_of[message], answer.current) end,
  }, function(choice)
    if not (choice and chats[buffer] == chat) then return end
    client.guard(function()
      require_chat(buffer)
      client.request_sync('conversations/chooseAlternative', { messageId = choice.id })
      redraw(buffer, chat)
    end)
  end)
end

-- Presets: the REPL's named system prompts, models and settings ------------------------------

-- Makes llmster read its config file again (it also does when the file changed and nothing streams); returns the
-- names of the presets.
function M.reload_config()
  local names = vim.tbl_map(function(preset) return preset.name end, client.request_sync('config/reload', {}).presets)
  client.notify(string.format('configuration read again (%d presets)', #names), vim.log.levels.INFO)
  return names
end

-- The names of the configured presets.
function M.preset_names()
  return vim.tbl_map(function(preset) return preset.name end, client.request_sync('presets/list', {}).presets)
end

local function known_preset(name)
  if not vim.tbl_contains(M.preset_names(), name) then error('there is no preset ' .. name, 0) end
  return name
end

-- Asks for a configured preset with vim.ui.select (each with its summary), then calls `choose(name)`.
function M.pick_preset(prompt, choose)
  local presets = client.request_sync('presets/list', {}).presets
  if #presets == 0 then error('no presets: add lines such as "preset.NAME.system = …" to llmster\'s config', 0) end
  vim.ui.select(presets, {
    prompt = prompt, format_item = function(preset) return preset.name .. '  ' .. (isnil(preset.summary) and '' or preset.summary) end,
  }, function(choice) if choice then client.guard(choose, choice.name) end end)
end

-- Gives the chat a preset's system prompt, model and settings (from its first message when it has none yet).
function M.apply_preset(name, buffer)
  buffer = (buffer and buffer ~= 0) and buffer or vim.api.nvim_get_current_buf()
  local chat = require_chat(buffer)
  if not chat.conversation then
    chat.preset = known_preset(name)
    client.notify('preset ' .. name .. ' applies from the first message', vim.log.levels.INFO)
    return
  end
  local result = client.request_sync('presets/apply', { conversationId = chat.conversation, name = name })
  if not isnil(result.modelKey) then chat.model = result.modelKey end
  return note_fresh_context(chat, result, 'preset ' .. name .. ' applied')
end

-- Opens a new chat that starts with preset `name`.
function M.open_with_preset(name)
  known_preset(name)
  local buffer = M.open()
  chats[buffer].preset = name
  return buffer
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
  local models = client.request_sync('models/list', {}).models
  M.model_cache = models
  return models
end

-- :LlmsterModels: choose the model of the current chat, loaded under llmster's load policy.
function M.pick_model()
  local buffer = vim.api.nvim_get_current_buf()
  local chat = chats[buffer]
  if not chat then error('not a chat buffer: :Llmster opens one', 0) end
  local models = vim.tbl_filter(function(m) return m.type == 'llm' end, M.models())
  vim.ui.select(models, { prompt = 'Model', format_item = M.format_model }, function(choice)
    if not (choice and chats[buffer]) then return end
    local previous = chat.model
    chat.model = choice.key
    -- Under the load policy either way: a chat with no conversation yet gives its earlier choice.
    local method, params = 'models/select', { conversationId = chat.conversation, model = choice.key }
    if not chat.conversation then method, params = 'models/selectPending', { model = choice.key, previous = previous } end
    client.request(method, params, function(result, failure)
      if failure then return client.notify(failure.message) end
      if isnil(result.loaded) then client.notify(choice.key .. ' is the chat\'s model', vim.log.levels.INFO) end
    end, function(step)
      if step.type == 'loading' then client.notify('loading ' .. tostring(step.model) .. '…', vim.log.levels.INFO) end
      if step.type == 'loaded' then
        client.notify(string.format('%s loaded in %.1f s', tostring(step.instanceId), tonumber(step.loadTimeSeconds) or 0), vim.log.levels.INFO)
      end
    end)
  end)
end

local function context_length(key)
  for _, model in ipairs(M.model_cache or {}) do
    if model.key == key then
      for _, instance in ipairs(isnil(model.loaded_instances) and {} or model.loaded_instances) do
        local config = instance.config
        if type(config) == 'table' and tonumber(config.context_length) then return tonumber(config.context_length) end
      end
      return tonumber(model.max_context_length)
    end
  end
  return nil
end

local function tokens(count)
  if count >= 1000 then return string.format('%.1fk', count / 1000) end
  return tostring(count)
end

-- For 'statusline': the chat's model, its context use and a streaming indicator; '' outside chats.
function M.statusline()
  local chat = chats[vim.api.nvim_get_current_buf()]
  if not chat then return '' end
  local parts = { chat.model or 'default model' }
  local stats = chat.stats
  if stats then
    local used = (tonumber(stats.input_tokens) or 0) + (tonumber(stats.total_output_tokens) or 0)
    local limit = context_length(chat.model)
    table.insert(parts, limit and string.format('%s/%s tokens', tokens(used), tokens(limit)) or (tokens(used) .. ' tokens'))
  end
  if chat.reply then table.insert(parts, chat.reply.indicator_text or 'streaming…') end
  return 'llmster: ' .. table.concat(parts, ' · ')
end

-- Command palette ------------------------------------------------------------------------------

M.palette = {
  { 'New chat', function() M.open() end },
  { 'New chat with a preset', function() M.pick_preset('New chat with preset', M.open_with_preset) end },
  { 'Send', function() M.send_chat() end },
  { 'Cancel the reply', function() M.cancel() end },
  { 'Regenerate the last answer', function() M.regenerate() end },
  { 'Edit the last message', function() M.edit_last() end },
  { 'Resend with a fresh server context', function() M.fresh() end },
  { 'Choose an alternative answer (or version) of the last message', function() M.pick_alternative() end },
  { 'Choose the model', function() M.pick_model() end },
  { 'Show or hide reasoning', function() M.toggle_folds() end },
  { 'Library', function() require('llmster.library').list() end },
  { 'Search the library', function() require('llmster.library').search() end },
  { 'Rename the chat', function() require('llmster.library').rename() end },
  { 'Move the chat to a folder', function() require('llmster.library').move() end },
  { 'Pin or unpin the chat', function() require('llmster.library').toggle_pin() end },
  { 'Delete the chat', function() require('llmster.library').delete() end },
  { 'Add the alternate buffer as context', function() M.add_context(vim.fn.bufnr('#'), vim.api.nvim_get_current_buf()) end },
  { 'Set the system prompt', function()
    vim.ui.input({ prompt = 'System prompt: ' }, function(text) if text then client.guard(M.set_system_prompt, text) end end)
  end },
  { 'Apply a preset', function()
    local buffer = vim.api.nvim_get_current_buf()
    require_chat(buffer)
    M.pick_preset('Apply preset', function(name) M.apply_preset(name, buffer) end)
  end },
  { 'Read the configuration again', function() M.reload_config() end },
  { 'Choose the integrations (tools)', function()
    local buffer = vim.api.nvim_get_current_buf()
    vim.ui.input({ prompt = 'Integrations (space-separated, empty: none): ' }, function(text)
      if text then client.guard(M.set_integrations, vim.split(vim.trim(text), '%s+', { trimempty = true }), buffer) end
    end)
  end },
  { 'Set the reasoning effort', function()
    vim.ui.select({ 'off', 'low', 'medium', 'high', 'on', 'default' }, { prompt = 'Reasoning' }, function(choice)
      if choice then client.guard(M.set_reasoning, choice) end
    end)
  end },
}

-- :LlmsterActions: every action of the plugin in a vim.ui.select picker.
function M.actions()
  vim.ui.select(M.palette, { prompt = 'llmster', format_item = function(item) return item[1] end }, function(choice)
    if choice then client.guard(choice[2]) end
  end)
end

-- Kept for compatibility: the library list.
function M.list_chats()
  return require('llmster.library').list()
end

M.notify, M.guard = client.notify, client.guard
M.rename_buffer = rename_buffer

return M
