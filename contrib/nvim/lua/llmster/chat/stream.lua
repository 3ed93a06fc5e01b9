-- A streaming reply drawn into its chat buffer: segments of text and reasoning, tool calls, progress, the end.
local client = require('llmster.client')
local config = require('llmster.config')
local folds = require('llmster.chat.folds')
local state = require('llmster.chat.buffer')
local chats = state.chats
local lines_of = state.lines_of
local position = state.position
local mark_at = state.mark_at
local rename_buffer = state.rename_buffer
local add_fold, remember_first_line, refresh_folds = folds.add_fold, folds.remember_first_line, folds.refresh_folds
local isnil = client.isnil
-- Required when used: it requires this module.
local function chat_module() return require('llmster.chat') end
local function context_module() return require('llmster.context') end

local M = {}

local draw_exchange, forget_send

function M.set_indicator(buffer, reply, text)
  if not vim.api.nvim_buf_is_valid(buffer) then return end
  local row = position(buffer, reply.header)
  if not row then return end
  if text then
    reply.indicator = vim.api.nvim_buf_set_extmark(buffer, state.indicator_namespace, row, 0,
      { id = reply.indicator, virt_text = { { '  ' .. text, 'Comment' } }, virt_text_pos = 'eol' })
    reply.indicator_text = text
  elseif reply.indicator then
    vim.api.nvim_buf_del_extmark(buffer, state.indicator_namespace, reply.indicator)
    reply.indicator, reply.indicator_text = nil, nil
  end
end

-- Whether an undo went back past the reply's change numbered `change` (nil: none yet).
local function undone(buffer, change)
  return vim.api.nvim_buf_call(buffer, function() return change ~= nil and vim.fn.changenr() < change end)
end

-- Whether the reply's "### Assistant" line is still where it was: undo, or deleting it, takes the exchange away. An
-- answer asked again streams in place of the old one, which an undo of its first change brings back: that takes it
-- away too (an undo of a later chunk only cuts it short).
function M.intact(buffer, reply)
  if reply.retry and undone(buffer, reply.first_change) then return false end
  local header, finish = position(buffer, reply.header), position(buffer, reply.finish)
  local count = vim.api.nvim_buf_line_count(buffer)
  return header ~= nil and finish ~= nil and header < count and finish < count
    and vim.api.nvim_buf_get_lines(buffer, header, header + 1, false)[1] == '### Assistant'
end

-- Takes the exchange of `message_id` out of the library (chat/withdraw), as undo took it out of the buffer.
local function withdraw(chat, conversation, message_id)
  client.request('chat/withdraw', { conversationId = conversation, messageId = message_id }, function(result, failure)
    chat.withdrawing = nil
    if failure then return client.notify('undo could not take the message back from the library: ' .. tostring(failure.message)) end
    if not isnil(result.contextMeter) then chat.meter = result.contextMeter end
  end)
end

-- Puts back what a send that saved nothing (or that undo took back) took from the chat: the context items it detached, its template.
local function restore_attachments(chat, reply)
  if reply.context and #reply.context > 0 then
    chat.context = vim.list_extend(vim.list_extend({}, reply.context), chat.context)
    context_module().show_context(chat)
  end
  chat.template_preset = chat.template_preset or reply.template_preset
end

-- After an undo took the send of a streaming reply back, the send's step (and the reply's) would come back with a
-- redo: the exchange cut off, which the library no longer holds, and an edit's over an input still being edited.
-- The send is taken off the redo chain as a refused one is (forget_send): the typing before it, made again as a new
-- change, is what undo takes away and redo types again. When the step before is not such typing, a change that
-- changes nothing is made and undone, which leaves it as the only redo: a redo then changes nothing. Cursors stay.
local function forget_withdrawn(buffer)
  vim.api.nvim_buf_call(buffer, function()
    local cursors = {}
    for _, window in ipairs(vim.fn.win_findbuf(buffer)) do cursors[window] = vim.api.nvim_win_get_cursor(window) end
    if not forget_send(buffer) then
      local count = vim.api.nvim_buf_line_count(buffer)
      vim.api.nvim_buf_set_lines(buffer, count - 1, count, false, vim.api.nvim_buf_get_lines(buffer, count - 1, count, false))
      vim.cmd('silent undo')
    end
    for window, cursor in pairs(cursors) do pcall(vim.api.nvim_win_set_cursor, window, cursor) end
  end)
end

-- Stops showing a reply whose exchange the user took away (undo): it is cancelled, and its exchange (an answer asked
-- again: that answer) leaves the library too, so regenerate, alternatives and the next send act on what the buffer
-- shows; a redo does not bring it back (forget_withdrawn). What the send took from
-- the chat (its context items, its template) waits for the next send again, as its text is back in the input; an
-- edit taken back is being edited again (the library makes the message it replaced current again, as undo shows it).
function M.detach(buffer, reply)
  reply.detached = true
  local chat = reply.chat
  -- Undone back past the send (or an answer asked again past its first change), not deleted by hand.
  if undone(buffer, reply.first_change or reply.step) then pcall(forget_withdrawn, buffer) end
  restore_attachments(chat, reply)
  if reply.displaced then
    chat.edit_next = reply.displaced
    chat_module().show_editing(buffer, chat)
  end
  client.cancel_request(reply.id)
  -- Which message is last once the exchange leaves is not known here: the next edit or regenerate names none.
  chat.last_user_id = nil
  if chat.reply == reply then chat.reply = nil end
  M.set_indicator(buffer, reply, nil)
  chat.withdrawing = true
  if reply.message_id and chat.conversation then
    withdraw(chat, chat.conversation, reply.message_id)
  else
    -- No event named the reply yet: it is withdrawn when the send answers (see M.on_reply).
    reply.withdraw_later = true
  end
  client.notify(reply.displaced and 'undo took the edit back: the last message is current again and the edit waits in the input'
    or reply.retry and 'undo took the answer asked again back: it is cancelled, and the answer before is current again'
    or 'undo took the message back: the reply is cancelled and the exchange leaves the library', vim.log.levels.INFO)
end

-- Runs `change` in `buffer` as part of the reply's undo step, unless the user changed the buffer since.
-- Windows whose cursor sat at the reply's end follow it. A reply whose exchange the user took away is detached
-- instead; one that an undo cut short is drawn again from the library when it ends.
local function write(buffer, reply, change)
  if reply.detached then return end
  if not M.intact(buffer, reply) then return M.detach(buffer, reply) end
  if undone(buffer, reply.change) then reply.redraw = true end
  local row, col = position(buffer, reply.finish)
  local followers = {}
  for _, window in ipairs(vim.fn.win_findbuf(buffer)) do
    local cursor = vim.api.nvim_win_get_cursor(window)
    if cursor[1] - 1 == row and cursor[2] + 1 >= col then table.insert(followers, window) end
  end
  vim.api.nvim_buf_call(buffer, function()
    if reply.tick == vim.api.nvim_buf_get_changedtick(buffer) then pcall(vim.cmd, 'undojoin') end
    -- The buffer's on_lines watcher (M.watch) tells the reply's own changes from the user's by this flag.
    reply.writing = true
    local ok, failure = pcall(change)
    reply.writing = false
    if not ok then error(failure, 0) end
    reply.change = vim.fn.changenr()
    reply.first_change = reply.first_change or reply.change
  end)
  reply.tick = vim.api.nvim_buf_get_changedtick(buffer)
  local new_row, new_col = position(buffer, reply.finish)
  for _, window in ipairs(followers) do pcall(vim.api.nvim_win_set_cursor, window, { new_row + 1, new_col }) end
end

-- While a reply streams, the rows from its "### Assistant" line to the input's "### You" line are the reply's: text
-- typed there would be lost when the reply is finalised. A user change there is noted by M.watch, and M.guard_insert
-- moves Insert mode to the input area; an undo that took the exchange away is noticed at once (see `detach`).
local function reply_rows(buffer, reply)
  local header = position(buffer, reply.header)
  local input = state.last_header(buffer, '### You')
  if not (header and input) or input < header then return nil end
  return header, input
end

-- on_lines of a chat buffer: a change the streaming reply did not make itself is noted; if it took the reply's
-- header away (undo), the reply is detached right away rather than at its next delta.
function M.watch(buffer, first, last, new_last)
  local chat = chats[buffer]
  local reply = chat and chat.reply
  if not reply or reply.writing or reply.fixing or reply.detached then return end
  reply.trespass = { first = first, last = last, new_last = new_last }
  vim.schedule(function()
    if chat.reply == reply and not reply.detached and vim.api.nvim_buf_is_valid(buffer) and not M.intact(buffer, reply) then
      M.detach(buffer, reply)
    end
  end)
end

-- InsertEnter of a chat buffer: Insert mode that would start inside the streaming reply starts at the end of the
-- input area instead (a line `o` opened in the reply is taken out again), so typed text never enters the reply.
function M.guard_insert(buffer)
  local chat = chats[buffer]
  local reply = chat and chat.reply
  if not reply or reply.detached then return end
  local first, input = reply_rows(buffer, reply)
  local row = vim.api.nvim_win_get_cursor(0)[1] - 1
  if not first or row < first or row > input then return end
  local change = reply.trespass
  reply.trespass = nil
  reply.fixing = true
  -- `o` and `O` open an empty line before Insert mode starts: it goes again.
  if change and change.first >= first and change.first <= input and change.last == change.first and change.new_last > change.first then
    local opened = vim.api.nvim_buf_get_lines(buffer, change.first, change.new_last, false)
    if vim.trim(table.concat(opened, '')) == '' then
      vim.api.nvim_buf_set_lines(buffer, change.first, change.new_last, false, {})
    end
  end
  local count = vim.api.nvim_buf_line_count(buffer)
  if vim.api.nvim_buf_get_lines(buffer, count - 1, count, false)[1] ~= '' then
    vim.api.nvim_buf_set_lines(buffer, count, count, false, { '' })
    count = count + 1
  end
  reply.fixing = false
  vim.api.nvim_win_set_cursor(0, { count, 0 })
  -- A non-empty v:char keeps the cursor where InsertEnter put it.
  vim.v.char = ' '
end

local function insert(buffer, reply, text)
  local row, col = position(buffer, reply.finish)
  vim.api.nvim_buf_set_text(buffer, row, col, row, col, lines_of(state.visible(text)))
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
    -- The engine's label ("Thought for 4.2 s"), from reasoning.end or, failing that, the saved reply.
    return '▸ ' .. (segment.label or 'Thinking…')
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
  lines = vim.tbl_map(state.visible, lines)
  vim.api.nvim_buf_set_text(buffer, row, col, end_row, end_col, lines)
  if segment.stop then
    vim.api.nvim_buf_del_extmark(buffer, state.namespace, segment.stop)
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

function M.single_line(value)
  if isnil(value) then return '' end
  local text = type(value) == 'string' and value or vim.json.encode(value):gsub('\\/', '/')
  return (text:gsub('\n', ' '))
end

-- The lines of a tool call: a header with name, arguments and status, then its output.
function M.tool_lines(call)
  local status = call.status or 'running'
  if status == 'succeeded' or status == 'success' then status = 'done' end
  local header = string.format('⚙ %s(%s) · %s', call.name or '?', M.single_line(call.arguments), status)
  local reason = call.reason or call.failureReason
  if not isnil(reason) then header = header .. ': ' .. M.single_line(reason) end
  local lines = { header }
  if not isnil(call.output) and call.output ~= '' then vim.list_extend(lines, lines_of(call.output)) end
  return lines
end

-- The status line under a reply that did not complete, as the reopened transcript shows it ("[incomplete: why]"),
-- or nil.
function M.status_note(message)
  if message.status == 'complete' or message.status == 'streaming' then return nil end
  local reason = not isnil(message.error) and message.error ~= '' and (': ' .. M.single_line(message.error)) or ''
  return '[' .. tostring(message.status) .. reason .. ']'
end

-- The lines of a saved message (conversations/get, chat/send's result) as a transcript shows it, from its "### "
-- header on, and its folds as { first row, last row (0-based, in those lines), summary }.
function M.message_lines(message)
  local lines, folds = {}, {}
  local function add(more) vim.list_extend(lines, more) end
  if message.role == 'user' then
    add({ '### You' })
    add(lines_of(message.text or ''))
    for _, item in ipairs(isnil(message.context) and {} or message.context) do
      add({ '', '[context: ' .. item.name .. ']' })
    end
    for _, image in ipairs(isnil(message.images) and {} or message.images) do
      add({ '', '[image: ' .. M.single_line(image.name) .. ']' })
    end
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
        local call_lines = M.tool_lines(call)
        -- Output ending in a newline: the blank line after the part is enough.
        if #call_lines > 1 and call_lines[#call_lines] == '' then table.remove(call_lines) end
        add(call_lines)
        if #call_lines > 1 then table.insert(folds, { first + 1, #lines - 1, '▸ output of ' .. tostring(call.name) }) end
      elseif part.kind == 'reasoning' then
        add(lines_of((part.text:gsub('\n+$', ''))))
        table.insert(folds, { first, #lines - 1, '▸ ' .. tostring(part.reasoningLabel) })
      else
        add(lines_of(index == #parts and part.text or (part.text:gsub('\n+$', ''))))
      end
      if index < #parts then add({ '' }) end
    end
    if #parts == 0 or parts[#parts].kind ~= 'text' then add({ '' }) end
    local note = M.status_note(message)
    if note then add({ note }) end
  end
  return vim.tbl_map(state.visible, lines), folds
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
    insert(buffer, reply, table.concat(M.tool_lines(call), '\n'))
    end_segment(buffer, reply)
  else
    replace_segment(buffer, reply, segment, M.tool_lines(call))
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

-- Stops the one-second tick of the reply's progress.
local function end_progress(reply)
  reply.progress = nil
  if reply.progress_timer then
    reply.progress_timer:stop()
    reply.progress_timer:close()
    reply.progress_timer = nil
  end
end

-- Shows what the reply waits for ("processing prompt", FRACTION done) with the seconds since the send, beside its
-- header and in the statusline; the seconds move on every second, events or not, until another kind of event.
local function show_progress(buffer, reply, what, fraction)
  reply.progress = { what = what, fraction = fraction }
  local function tick()
    local chat = chats[buffer]
    if not (reply.progress and chat and chat.reply == reply) then return end_progress(reply) end
    local seconds = math.floor((vim.loop.now() - reply.started) / 1000 + 0.5)
    M.set_indicator(buffer, reply, string.format('%s %s · %d s', reply.progress.what, percent(reply.progress.fraction), seconds))
    vim.cmd('redrawstatus!')
  end
  tick()
  if not reply.progress_timer then
    reply.progress_timer = vim.loop.new_timer()
    reply.progress_timer:start(1000, 1000, vim.schedule_wrap(tick))
  end
end

function M.on_event(buffer, reply, event)
  local chat = chats[buffer]
  if not (chat and chat.reply == reply and vim.api.nvim_buf_is_valid(buffer)) then return end
  if not isnil(event.conversationId) then chat.conversation = chat.conversation or event.conversationId end
  if not isnil(event.messageId) then reply.message_id = event.messageId end
  local kind = event.type
  if kind ~= 'model_load.progress' and kind ~= 'prompt_processing.progress' then end_progress(reply) end
  if kind == 'model_load.progress' then
    show_progress(buffer, reply, 'loading model', event.progress)
  elseif kind == 'prompt_processing.progress' then
    show_progress(buffer, reply, 'processing prompt', event.progress)
  elseif kind == 'message.delta' or kind == 'reasoning.delta' then
    M.set_indicator(buffer, reply, kind == 'reasoning.delta' and 'thinking…' or 'streaming…')
    write(buffer, reply, function() append(buffer, reply, kind == 'message.delta' and 'message' or 'reasoning', event.text) end)
  elseif kind == 'reasoning.end' then
    -- The engine's label of the reasoning so far labels the latest reasoning.
    for index = #reply.segments, 1, -1 do
      if reply.segments[index].kind == 'reasoning' then
        reply.segments[index].label = not isnil(event.reasoningLabel) and event.reasoningLabel or nil
        break
      end
    end
  elseif kind == 'message.replace' or kind == 'reasoning.replace' then
    write(buffer, reply, function() replace(buffer, reply, kind == 'message.replace' and 'message' or 'reasoning', event.text) end)
  elseif kind == 'tool_call.name' then
    M.set_indicator(buffer, reply, 'preparing a call to ' .. tostring(event.name) .. '…')
  elseif kind:match('^tool_call%.') then
    M.set_indicator(buffer, reply, 'running ' .. tostring(event.name) .. '…')
    write(buffer, reply, function() on_tool_call(buffer, reply, event) end)
  elseif kind == 'error' then
    reply.errored = true
    write(buffer, reply, function()
      open_segment(buffer, reply, 'note')
      insert(buffer, reply, '[error: ' .. M.single_line(event.message) .. ']')
    end)
  end
end

-- Draws the exchange of a reply that ended with the renderer of saved messages (M.message_lines): the saved user
-- message `user` in place of the one typed (unless nil: a regenerate), and the saved reply `message` in place of
-- what streamed, so the open transcript is the reopened one.
draw_exchange = function(buffer, reply, user, message)
  local chat = reply.chat
  local header = position(buffer, reply.header)
  local stop = position(buffer, reply.finish)
  local from, lines = header, {}
  local prompt = user and position(buffer, reply.prompt)
  if prompt and prompt < header and vim.api.nvim_buf_get_lines(buffer, prompt, prompt + 1, false)[1] == '### You' then
    from = prompt
    lines = M.message_lines(user)
    table.insert(lines, '')
  end
  local offset = #lines
  local reply_lines, reply_folds = M.message_lines(message)
  vim.list_extend(lines, reply_lines)
  local streamed = {}
  for _, segment in ipairs(reply.segments) do
    if segment.fold then streamed[segment.fold] = true end
  end
  chat.folds = vim.tbl_filter(function(fold) return not streamed[fold] end, chat.folds)
  reply.segments = {}
  vim.api.nvim_buf_set_lines(buffer, from, stop + 1, false, lines)
  for _, fold in ipairs(reply_folds) do
    add_fold(chat, { start = mark_at(buffer, from + offset + fold[1], 0, false),
      stop = mark_at(buffer, from + offset + fold[2] + 1, 0, false), summary = fold[3], first_line = lines[offset + fold[1] + 1] })
  end
  reply.header = mark_at(buffer, from + offset, 0, false)
  reply.finish = mark_at(buffer, from + #lines - 1, #lines[#lines], true)
  refresh_folds(buffer)
end

-- Forgets the reply's marks and moves followers to the input area.
function M.finish_reply(buffer, chat)
  local reply = chat.reply
  chat.reply = nil
  end_progress(reply)
  M.set_indicator(buffer, reply, nil)
  end_segment(buffer, reply)
  local row = position(buffer, reply.finish)
  local last = vim.api.nvim_buf_line_count(buffer)
  for _, window in ipairs(vim.fn.win_findbuf(buffer)) do
    if vim.api.nvim_win_get_cursor(window)[1] - 1 == row then vim.api.nvim_win_set_cursor(window, { last, 0 }) end
  end
end
-- Keeps the buffer name in step with the conversation's title, which llmster may change after any reply.
local function learn_title(buffer, chat)
  if not chat.conversation then return end
  client.request('conversations/get', { id = chat.conversation }, function(result)
    if result and chats[buffer] == chat then
      chat.model = chat.model or (not isnil(result.conversation.modelKey) and result.conversation.modelKey or nil)
      local title = result.conversation.displayTitle
      if title ~= chat.title then
        chat.title = title
        rename_buffer(buffer, title)
      end
    end
  end)
end

-- The rows from `first` (0-based) on of `lines` that differ from `other`'s, and as many rows from the end.
local function differing_rows(lines, other)
  local first = 0
  while first < #lines and first < #other and lines[first + 1] == other[first + 1] do first = first + 1 end
  local same = 0
  while same < #lines - first and same < #other - first and lines[#lines - same] == other[#other - same] do same = same + 1 end
  return first, same
end

-- After the refused send's own undo step was undone (the buffer as before the send), a redo would bring back that
-- step, whose exchange the library never held. The step before it (the typing), when it changed the input area
-- alone, is made again as a new change, which leaves the send off the redo chain: undo takes that typing away, redo
-- types it again, and nothing is left to redo after it. Returns false when it is not done (the send's step stays
-- the next redo, changing nothing).
forget_send = function(buffer)
  local returned = vim.api.nvim_buf_get_lines(buffer, 0, -1, false)
  local change = vim.fn.changenr()
  if change == 0 then return false end
  vim.cmd('silent undo')
  local earlier = vim.api.nvim_buf_get_lines(buffer, 0, -1, false)
  if vim.fn.changenr() == change then return false end
  local first, same = differing_rows(earlier, returned)
  local input = state.last_header(buffer, '### You')
  local returned_input = #returned
  while returned_input > 0 and returned[returned_input] ~= '### You' do returned_input = returned_input - 1 end
  if first == #earlier and first == #returned or not input or first <= input or first < returned_input then
    vim.cmd('silent redo')
    return false
  end
  vim.api.nvim_buf_set_lines(buffer, first, #earlier - same, false, vim.list_slice(returned, first + 1, #returned - same))
  return true
end

-- Puts the message of a send that saved nothing back in the input area, in place of the exchange drawn for it;
-- text typed since follows it, or with `typed_apart` is left out and returned (as lines).
function M.put_prompt_back(buffer, reply, typed_apart)
  local row = position(buffer, reply.prompt)
  if not row then return {} end
  local lines = vim.list_extend({}, reply.prompt_lines)
  local input = state.last_header(buffer, '### You')
  local typed = input and input > row and vim.api.nvim_buf_get_lines(buffer, input + 1, -1, false) or {}
  if not typed_apart and vim.trim(table.concat(typed, '\n')) ~= '' then
    vim.list_extend(vim.list_extend(lines, { '' }), typed)
  end
  vim.api.nvim_buf_call(buffer, function()
    local untouched = reply.tick == vim.api.nvim_buf_get_changedtick(buffer)
    -- Nothing changed since the send: the return joins the send's undo step, so an undo goes back to before the
    -- send, not to an exchange the library never held, and a redo of the step brings back the message in the input.
    if untouched then pcall(vim.cmd, 'undojoin') end
    vim.api.nvim_buf_set_lines(buffer, row, -1, false, lines)
    if not (untouched and not typed_apart and reply.sent_change and vim.fn.changenr() == reply.sent_change) then return end
    -- The send had an undo step of its own, which now changes nothing: it is undone, and left off the redo chain
    -- (forget_send), so the send leaves no step behind, the next undo taking the typing away (a step that changes
    -- nothing would make the first undo seem to do nothing). Were the buffer before the send another, the step is
    -- redone (undo then takes the send back whole).
    local returned = vim.api.nvim_buf_get_lines(buffer, 0, -1, false)
    local windows = vim.tbl_filter(function(window) return vim.api.nvim_win_get_cursor(window)[1] > row end,
      vim.fn.win_findbuf(buffer))
    local cursors = {}
    for _, window in ipairs(vim.fn.win_findbuf(buffer)) do cursors[window] = vim.api.nvim_win_get_cursor(window) end
    vim.cmd('silent undo')
    if vim.deep_equal(vim.api.nvim_buf_get_lines(buffer, 0, -1, false), returned) then
      forget_send(buffer)
      local count = vim.api.nvim_buf_line_count(buffer)
      for window, cursor in pairs(cursors) do pcall(vim.api.nvim_win_set_cursor, window, cursor) end
      for _, window in ipairs(windows) do vim.api.nvim_win_set_cursor(window, { count, 0 }) end
    else
      vim.cmd('silent redo')
      for window, cursor in pairs(cursors) do pcall(vim.api.nvim_win_set_cursor, window, cursor) end
    end
  end)
  return typed
end

-- Draws `chat` again from the library, then runs `after`, once this callback has returned (the redraw waits for
-- conversations/get, whose answer cannot arrive inside another request's callback) and unless another reply started
-- in the chat meanwhile.
local function redraw_later(buffer, chat, after)
  vim.schedule(function()
    if chats[buffer] ~= chat or chat.reply then return end
    client.guard(chat_module().redraw, buffer, chat)
    after()
  end)
end

-- Offers a fresh server context after a lost one: the message back in the input area is sent again in it (or,
-- after an answer asked again, the last message is answered again). `reason` is rpc's decision.reason.
local function offer_fresh_context(buffer, reason)
  if not config.options.prompt_fresh_context then return end
  local chat = chats[buffer]
  local where = reason == 'continuation_elsewhere' and 'Another server holds this conversation\'s context'
    or 'LM Studio no longer has this conversation\'s context (it restarted?)'
  local prompt = chat and chat.returned and (where .. ': your message is back in the input area') or where
  vim.schedule(function()
    vim.cmd('redraw')
    vim.ui.select({ 'Resend with a fresh server context that starts with a recap of the earlier turns',
      'Resend with an empty fresh context (the model forgets the earlier turns)', 'Not now' },
      { prompt = prompt }, function(_, index)
        if index and index < 3 and chats[buffer] then client.guard(chat_module().fresh, buffer, index == 1) end
      end)
  end)
end

-- Offers what to do with a message that would fill the context (rpc's overflow decision): reload the model with the
-- larger context, start a fresh context with a recap, or send it anyway; the message back in the input area is sent
-- again that way, or stays there.
local function offer_overflow(buffer, decision)
  local choices, labels = {}, {}
  for _, choice in ipairs(decision.choices or {}) do
    table.insert(choices, choice)
    if choice == 'grow' then
      table.insert(labels, string.format('Reload %s with a %s-token context and send it', tostring(decision.model), tostring(decision.growTo)))
    elseif choice == 'recap' then
      table.insert(labels, 'Send it in a fresh context that starts with a recap (' .. tostring(decision.recap) .. ')')
    else
      table.insert(labels, 'Send it as it is')
    end
  end
  table.insert(labels, 'Not now')
  vim.schedule(function()
    vim.cmd('redraw')
    vim.ui.select(labels, { prompt = 'This message would fill the context (' .. tostring(decision.label) .. ')' }, function(_, index)
      if index and choices[index] and chats[buffer] then
        client.guard(chat_module().send_chat, buffer, { overflow = choices[index] })
      end
    end)
  end)
end

-- Offers the server's chat models (rpc's choose_model decision) to a chat that has none: the chosen one becomes the
-- chat's model and what came back is sent again (the message in the input area, else the answer asked again).
local function offer_model(buffer, candidates)
  if not candidates or #candidates == 0 then return end
  vim.schedule(function()
    vim.ui.select(candidates, { prompt = 'No model is chosen for this chat: send it with' }, function(choice)
      local chat = chats[buffer]
      if not (choice and chat) or chat.reply then return end
      chat.model = choice
      if chat.returned then
        client.guard(chat_module().send_chat, buffer)
      else
        client.guard(chat_module().regenerate, buffer)
      end
    end)
  end)
end

-- Offers what rpc's `decision` waits for (an overflow's choices, a fresh context, a model); nothing for none.
local function offer_decision(buffer, decision)
  if decision.type == 'overflow' then
    offer_overflow(buffer, decision)
  elseif decision.type == 'fresh_context' then
    offer_fresh_context(buffer, decision.reason)
  elseif decision.type == 'choose_model' then
    offer_model(buffer, decision.candidates)
  end
end

function M.on_reply(buffer, reply, result, failure)
  if reply.detached then
    if reply.withdraw_later then
      reply.withdraw_later = nil
      if result and not isnil(result.message) then
        withdraw(reply.chat, result.conversationId, result.message.id)
      else
        reply.chat.withdrawing = nil
      end
    end
    return
  end
  local chat = chats[buffer]
  if not (chat and chat.reply == reply and vim.api.nvim_buf_is_valid(buffer)) then return end
  -- The user message as the library saved it, for draw_exchange; the reply ends once it is here.
  if result and not reply.retry and not reply.detached and not reply.fetched and not isnil(result.message)
      and not isnil(result.message.parentId) then
    reply.fetched = true
    client.request('conversations/get', { id = result.conversationId }, function(answer)
      for _, message in ipairs(answer and answer.messages or {}) do
        if message.id == result.message.parentId then reply.user = message end
      end
      M.on_reply(buffer, reply, result, failure)
    end)
    return
  end
  if result then
    chat.conversation = result.conversationId
    -- The message this reply answers is now the last one shown (an edit's is new).
    if not isnil(result.message) and not isnil(result.message.parentId) then chat.last_user_id = result.message.parentId end
    chat.meter = not isnil(result.contextMeter) and result.contextMeter or chat.meter
    local label = not isnil(result.message) and not isnil(result.message.reasoningLabel) and result.message.reasoningLabel or nil
    for _, segment in ipairs(reply.segments) do
      if segment.kind == 'reasoning' and not segment.label then segment.label = label end
    end
  end
  local data = failure and not isnil(failure.data) and failure.data or {}
  local kind = data.kind
  local decision = not isnil(data.decision) and data.decision or {}
  -- A message that saved nothing (rpc hands the text back in data.returned) goes back to the input area; a retry
  -- or an edit (data.returned.kind) gives way to the exchange the library kept.
  local returned = not isnil(data.returned) and (isnil(data.returned.kind) or data.returned.kind == 'message')
  if failure and not reply.retry and (reply.created or returned) then
    M.finish_reply(buffer, chat)
    M.put_prompt_back(buffer, reply)
    restore_attachments(chat, reply)
    chat.returned = true
    -- The conversation made with the preset goes too (no Untitled one is left); the next try makes it again.
    if reply.created and reply.preset then
      client.request('conversations/delete', { id = chat.conversation })
      chat.conversation, chat.preset = nil, reply.preset
    end
    if decision.type == 'fresh_context' and not config.options.prompt_fresh_context then
      client.notify(tostring(failure.message) .. ' (your message is back in the input area: :LlmsterFresh sends it'
        .. ' with a fresh server context, :LlmsterFresh recap with a recap)')
    elseif decision.type ~= 'fresh_context' and decision.type ~= 'choose_model' then
      -- A fresh-context or model prompt says it; a second message would only ask for Enter first.
      client.notify(tostring(failure.message) .. ' (your message is back in the input area)')
    end
    offer_decision(buffer, decision)
  elseif failure and not isnil(data.returned) then
    -- A retry or an edit that saved nothing: the library still has the exchange it would have replaced, drawn again
    -- from it. The edited text waits in the input area, still replacing the last message when sent.
    M.finish_reply(buffer, chat)
    local edit = data.returned.kind == 'edit'
    if edit then
      chat_module().resume_edit(buffer, chat, reply.displaced, M.put_prompt_back(buffer, reply, true))
      restore_attachments(chat, reply)
    end
    local fresh = decision.type == 'fresh_context'
    if fresh and config.options.prompt_fresh_context then
      -- The prompt says it; a second message would only ask for Enter first.
    elseif fresh then
      client.notify(tostring(failure.message) .. (edit and ' (your edit is back in the input area: ' or ' (')
        .. ':LlmsterFresh sends it with a fresh server context, :LlmsterFresh recap with a recap)')
    else
      client.notify(tostring(failure.message) .. (edit
        and ' (your edit is back in the input area: sending it replaces the last message, :LlmsterCancel leaves)'
        or ' (the last answer stays)'))
    end
    redraw_later(buffer, chat, function() offer_decision(buffer, decision) end)
  else
    local note
    if failure then
      if kind == 'not_found' then
        failure = { message = 'this conversation is no longer in the library (deleted?); :Llmster starts a new chat' }
      end
      note = '[error: ' .. M.single_line(failure.message) .. ']'
      if kind == 'continuation_lost' then
        chat.fresh_next = true
        note = note .. ' :LlmsterFresh resends it with a fresh server context (:LlmsterFresh recap: with a recap)'
      end
      -- The fresh-context prompt says it already; a second message would only ask for Enter first.
      if kind ~= 'continuation_lost' or not config.options.prompt_fresh_context then client.notify(failure.message) end
    elseif not isnil(result.message) and not reply.detached then
      -- The exchange is drawn again as the reopened chat draws it, from what the library saved: the user message
      -- (the filled template, its context chips) and the reply (its parts, reasoning times, why it stopped).
      write(buffer, reply, function() draw_exchange(buffer, reply, reply.user, result.message) end)
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
    M.finish_reply(buffer, chat)
    chat_module().give_back_displaced(buffer, reply.displaced)
    if chat.changed_elsewhere and chat.conversation then
      chat.changed_elsewhere = nil
      redraw_later(buffer, chat, function()
        client.notify('this conversation changed elsewhere while the reply streamed: it is shown again from the library',
          vim.log.levels.INFO)
      end)
    elseif reply.redraw and chat.conversation then
      redraw_later(buffer, chat, function()
        client.notify('undo changed the reply as it streamed: the chat is shown again from the library', vim.log.levels.INFO)
      end)
    end
    if kind == 'continuation_lost' then offer_fresh_context(buffer, decision.reason) end
  end
  if result then chat.fresh_next = nil end
  if result and type(result.stopNotice) == 'string' then client.notify(result.stopNotice, vim.log.levels.WARN) end
  if result and result.recap == true then
    client.notify('the fresh context started with a recap of the earlier turns', vim.log.levels.INFO)
  end
  -- Only an answer can have changed the title (a send that never left would try to start llmster again here).
  if result then learn_title(buffer, chat) end
  vim.api.nvim_exec_autocmds('User', { pattern = 'LlmsterReply', modeline = false })
end

return M
