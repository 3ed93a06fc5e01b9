-- Chat buffers: opening, sending, regenerating, editing the last message, alternatives, drafts.
local client = require('llmster.client')
local config = require('llmster.config')
local folds = require('llmster.chat.folds')
local keymaps = require('llmster.chat.keymaps')
local stream = require('llmster.chat.stream')
local state = require('llmster.chat.buffer')
local chats = state.chats
local lines_of = state.lines_of
local mark_at = state.mark_at
local last_header = state.last_header
local input_text = state.input_text
local new_input_area = state.new_input_area
local rename_buffer = state.rename_buffer
local require_chat = state.require_chat
local add_fold, refresh_folds, setup_window = folds.add_fold, folds.refresh_folds, folds.setup_window
local set_indicator = stream.set_indicator
local on_event, on_reply = stream.on_event, stream.on_reply
local isnil = client.isnil
-- Required when used: llmster.context uses this module's chat_for_range.
local function context() return require('llmster.context') end

local M = {}

-- Keeps the chat's unsent input as its conversation's draft; with `wait`, returns once llmster saved it.
local function save_draft(buffer, wait)
  local chat = chats[buffer]
  if not (chat and chat.conversation and vim.api.nvim_buf_is_loaded(buffer)) then return end
  local text = input_text(buffer)
  if text ~= state.as_input(chat.draft or '') then
    -- `shown`: llmster keeps a draft another client saved since, when the input was emptied.
    local params = { conversationId = chat.conversation, text = text, shown = chat.draft or '' }
    chat.draft = text
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
  vim.api.nvim_create_autocmd('BufEnter', { group = group, buffer = buffer, callback = function() state.last_chat = buffer end })
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
  vim.api.nvim_create_autocmd('InsertEnter', { group = group, buffer = buffer, callback = function() stream.guard_insert(buffer) end })
  vim.api.nvim_buf_attach(buffer, false, {
    on_lines = function(_, _, _, first, last, new_last)
      if not chats[buffer] then return true end
      stream.watch(buffer, first, last, new_last)
    end,
  })
  keymaps.chat_keymaps(buffer)
  return buffer
end

local function show(buffer)
  vim.api.nvim_set_current_buf(buffer)
  setup_window(vim.api.nvim_get_current_win())
end

-- Renders saved messages as the lines of a transcript, with folds for reasoning and tool output: the one renderer,
-- which a reply that ends draws its exchange with too (stream.message_lines).
local function render_messages(buffer, chat, messages)
  local lines, folds = {}, {}
  -- The last user message shown, which an edit or a regenerate names (lastMessageId), so that one sent from another
  -- client meanwhile is not the one replaced or asked again.
  chat.last_user_id = nil
  for _, message in ipairs(messages) do
    if message.role == 'user' then chat.last_user_id = message.id end
    local more, more_folds = stream.message_lines(message)
    for _, fold in ipairs(more_folds) do table.insert(folds, { fold[1] + #lines, fold[2] + #lines, fold[3] }) end
    vim.list_extend(lines, more)
    table.insert(lines, '')
  end
  table.insert(lines, '### You')
  vim.api.nvim_buf_set_lines(buffer, 0, -1, false, lines)
  for _, fold in ipairs(folds) do
    add_fold(chat, { start = mark_at(buffer, fold[1], 0, false), stop = mark_at(buffer, fold[2] + 1, 0, false), summary = fold[3],
      first_line = lines[fold[1] + 1] })
  end
end

-- Opens a chat buffer: a new conversation, or the saved one `conversation_id` (an id, id prefix or title).
function M.open(conversation_id)
  client.start()
  local answer = conversation_id and client.request_sync('conversations/get', { id = conversation_id, open = true })
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
    chat.conversation, chat.title = conversation.id, conversation.displayTitle
    chat.meter = not isnil(answer.contextMeter) and answer.contextMeter or nil
    chat.model = not isnil(conversation.modelKey) and conversation.modelKey or nil
    render_messages(buffer, chat, answer.messages)
    chat.draft = not isnil(conversation.draft) and conversation.draft or ''
    vim.api.nvim_buf_set_lines(buffer, -1, -1, false, chat.draft ~= '' and lines_of(chat.draft) or { '' })
  else
    chat.preset = config.options.default_preset
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
-- Shows beside the input header that the next send replaces the last message (or, without `text`, nothing).
local function show_edit(buffer, text)
  vim.api.nvim_buf_clear_namespace(buffer, state.edit_namespace, 0, -1)
  local row = text and last_header(buffer, '### You')
  if row then
    vim.api.nvim_buf_set_extmark(buffer, state.edit_namespace, row, 0, { virt_text = { { '  ' .. text, 'WarningMsg' } }, virt_text_pos = 'eol' })
  end
end

-- The input without its `#buffer` (the alternate buffer) and `/file PATH` lines, and the context items those lines
-- and the attached context name (llmster reads a file itself; a buffer goes as its text), which are then detached
-- (unless `keep`). Each item reaches the model as a fenced block before the message and is saved with it.
local function expand_input(chat, text, keep)
  local items = {}
  local function buffer_item(buffer)
    local name = vim.api.nvim_buf_get_name(buffer)
    table.insert(items, { name = name ~= '' and vim.fn.fnamemodify(name, ':~:.') or ('buffer ' .. buffer),
      text = table.concat(vim.api.nvim_buf_get_lines(buffer, 0, -1, false), '\n') })
  end
  -- A file goes by its name in its directory, which llmster then names it by.
  local function file_item(path)
    local full = vim.fn.fnamemodify(path, ':p')
    table.insert(items, { path = vim.fn.fnamemodify(full, ':t'), directory = vim.fn.fnamemodify(full, ':h') })
  end
  for _, item in ipairs(chat.context) do
    if item.path then file_item(item.path)
    elseif item.buffer then buffer_item(item.buffer) end
  end
  local kept = {}
  for _, line in ipairs(lines_of(text)) do
    local path = line:match('^/file%s+(.+)$')
    if line == '#buffer' then
      local alternate = vim.fn.bufnr('#')
      if alternate > 0 and not chats[alternate] then buffer_item(alternate) end
    elseif path then
      file_item(vim.fn.expand(vim.trim(path)))
    else
      table.insert(kept, line)
    end
  end
  if not keep then
    chat.context = {}
    context().show_context(chat)
  end
  return vim.trim(table.concat(kept, '\n')), #items > 0 and items or nil
end

-- Sends the chat's input (or, with `options.retry`, asks again for the last answer) and streams the reply; while the
-- chat edits its last message, the input replaces it. `options`: retry, fresh (a fresh server context; 'recap': one
-- that starts with a recap of the earlier turns), overflow (the answer to an overflow decision).
function M.send_chat(buffer, options)
  buffer = (buffer and buffer ~= 0) and buffer or vim.api.nvim_get_current_buf()
  options = options or {}
  local chat = require_chat(buffer)
  local text, input_row = input_text(buffer)
  -- Asking again leaves an edit in progress where it is; an edit needs its text (it keeps the original's items).
  local edit = not options.retry and chat.edit_next
  if not options.retry and text == '' and (edit or #chat.context == 0) then
    error('nothing to send: type below the last "### You" line', 0)
  end
  if options.retry and not chat.conversation then error('nothing to regenerate yet', 0) end
  -- A retry or an edit that cannot leave (llmster does not start) fails before the exchange it replaces goes.
  if options.retry or edit then client.start() end
  -- What the send detaches, put back if it comes back unsent.
  local attached, template_preset = chat.context, chat.template_preset
  chat.returned = nil
  local prompt_lines = vim.api.nvim_buf_get_lines(buffer, input_row, -1, false)
  local created, preset = chat.conversation == nil, nil
  if created and chat.preset then
    chat.conversation = client.request_sync('conversations/create',
      { preset = chat.preset, systemPrompt = chat.system_prompt, reasoning = chat.reasoning }).id
    preset, chat.preset = chat.preset, nil
  end
  local params = {
    conversationId = chat.conversation, model = chat.model,
    freshContext = options.fresh == 'recap' and 'recap' or ((options.fresh or chat.fresh_next) and true or nil),
    onOverflow = options.overflow,
    systemPrompt = not chat.conversation and chat.system_prompt or nil,
    integrations = not chat.conversation and chat.integrations or nil,
    reasoning = not chat.conversation and chat.reasoning or nil,
  }
  -- A cursor in the input area stays in the input area (the new one), where typing goes on while the reply streams.
  local followers = vim.tbl_filter(function(window)
    return not options.retry and vim.api.nvim_win_get_cursor(window)[1] - 1 >= input_row
  end, vim.fn.win_findbuf(buffer))
  local function changenr() return vim.api.nvim_buf_call(buffer, vim.fn.changenr) end
  local before_change = changenr()
  local header
  -- The message this acts on as the user saw it: an edit's from when it began, a regenerate's from the transcript.
  if options.retry then params.lastMessageId = chat.last_user_id elseif edit then params.lastMessageId = chat.edit_of end
  if options.retry then
    params.retry = true
    header = last_header(buffer, '### Assistant', input_row) or input_row
    vim.api.nvim_buf_set_lines(buffer, header, input_row, false, { '### Assistant', '', '' })
    -- The old answer's lines gave way to three: the input's header moved (a long answer's old row is past the end).
    input_row = header + 3
  else
    -- An edit keeps the attachments of the message it replaces (llmster-rpc(7)): what is attached now waits for the
    -- next message.
    local attaching = edit and {} or chat.context
    params.images = vim.tbl_map(function(item) return item.image end, vim.tbl_filter(function(item) return item.image end, attaching))
    if #params.images == 0 then params.images = nil end
    local names = vim.tbl_map(function(item) return item.name end,
      vim.tbl_filter(function(item) return not item.image end, attaching))
    if edit then
      params.text = vim.trim(text)
    else
      params.text, params.context = expand_input(chat, text)
    end
    -- A preset's template fills this one message, as the REPL's /preset NAME does.
    params.preset, chat.template_preset = chat.template_preset, nil
    if edit then
      params.edit = true
      local previous = last_header(buffer, '### You', input_row)
      if previous then
        vim.api.nvim_buf_set_lines(buffer, previous, input_row, false, {})
        input_row = previous
      end
    end
    for _, name in ipairs(names) do
      vim.api.nvim_buf_set_lines(buffer, -1, -1, false, { '', '[context: ' .. name .. ']' })
    end
    for _, image in ipairs(params.images or {}) do
      vim.api.nvim_buf_set_lines(buffer, -1, -1, false, { '', '[image: ' .. vim.fn.fnamemodify(image, ':t') .. ']' })
    end
    vim.api.nvim_buf_set_lines(buffer, -1, -1, false, { '', '### Assistant', '' })
    header = vim.api.nvim_buf_line_count(buffer) - 2
    new_input_area(buffer)
  end
  if not options.retry then
    chat.edit_next, chat.edit_of = nil, nil
    show_edit(buffer, nil)
  end
  local reply = {
    chat = chat, segments = {}, tools = {}, created = created, preset = preset, retry = options.retry,
    images = params.images, context = not (options.retry or edit) and attached or nil,
    -- An edit's reply: the input lines the edit displaced (maybe none), back when it is left or saved.
    displaced = edit or nil,
    template_preset = not options.retry and template_preset or nil,
    header = mark_at(buffer, header, 0, false),
    finish = mark_at(buffer, header + 1, 0, true),
    prompt = mark_at(buffer, input_row, 0, false), prompt_lines = prompt_lines,
    started = vim.loop.now(),
  }
  reply.tick = vim.api.nvim_buf_get_changedtick(buffer)
  -- The undo step of the send, when it has one of its own (see stream.put_prompt_back).
  reply.sent_change = changenr() ~= before_change and changenr() or nil
  -- The undo step the send is in (its own, or the typing's it joined): an undo back past it took the send back.
  reply.step = changenr()
  local last = vim.api.nvim_buf_line_count(buffer)
  for _, window in ipairs(followers) do vim.api.nvim_win_set_cursor(window, { last, 0 }) end
  chat.reply = reply
  set_indicator(buffer, reply, 'waiting…')
  local sent, id = pcall(client.request, 'chat/send', params,
    function(result, failure) on_reply(buffer, reply, result, failure) end,
    function(event) on_event(buffer, reply, event) end)
  if not sent then
    -- The request never left (llmster could not be started): nothing was saved, so it ends as llmster ends a
    -- refused send of its kind (a message goes back to the input area; a retry or an edit gives way to the exchange
    -- the library kept).
    on_reply(buffer, reply, nil, { message = tostring(id), data = { returned = {
      kind = options.retry and 'retry' or (edit and 'edit' or 'message') } } })
    error(client.shown_error(id))
  end
  reply.id = id
  return id
end

-- :LlmsterPreview: a dry run; shows the JSON llmster would post for the chat's input now, in a scratch buffer (q
-- closes it), and returns that buffer. Nothing is sent or saved, the input and its context stay; images show as their
-- type and size. A preset chosen for a chat with no conversation yet applies only once the first send makes it.
function M.preview(buffer)
  buffer = (buffer and buffer ~= 0) and buffer or vim.api.nvim_get_current_buf()
  local chat = require_chat(buffer)
  local text = input_text(buffer)
  local images = vim.tbl_map(function(item) return item.image end, vim.tbl_filter(function(item) return item.image end, chat.context))
  local input, items = expand_input(chat, text, true)
  local answer = client.request_sync('chat/preview', {
    text = input, context = items, conversationId = chat.conversation, model = chat.model,
    images = #images > 0 and images or nil, freshContext = chat.fresh_next and true or nil,
    systemPrompt = not chat.conversation and chat.system_prompt or nil,
    integrations = not chat.conversation and chat.integrations or nil,
    reasoning = not chat.conversation and chat.reasoning or nil,
  })
  local scratch = vim.api.nvim_create_buf(false, true)
  local header = string.format('%s %s%s', answer.method, (answer.server:gsub('/$', '')), answer.path)
  vim.api.nvim_buf_set_lines(scratch, 0, -1, false, vim.list_extend({ header, '' }, lines_of(answer.text)))
  vim.bo[scratch].filetype = 'json'
  vim.bo[scratch].modifiable = false
  vim.bo[scratch].bufhidden = 'wipe'
  pcall(vim.api.nvim_buf_set_name, scratch, 'llmster: request')
  vim.api.nvim_buf_set_keymap(scratch, 'n', 'q', '<Cmd>close<CR>', { noremap = true, silent = true })
  vim.cmd('split')
  vim.api.nvim_win_set_buf(0, scratch)
  return scratch
end

-- Asks again for an answer to the last message; the old answer stays in the library as an alternative.
function M.regenerate(buffer)
  return M.send_chat(buffer, { retry = true })
end

-- Sends the message again with a fresh server context (after LM Studio lost the conversation's context): the one
-- a send that found the context lost put back in the input area, as a new message (an edit put back, as the edit);
-- otherwise the last message is answered again in place. With `recap`, the fresh context starts with a recap of the earlier turns (their
-- transcript when it fits, else a summary).
function M.fresh(buffer, recap)
  buffer = (buffer and buffer ~= 0) and buffer or vim.api.nvim_get_current_buf()
  local chat = require_chat(buffer)
  local fresh = recap and 'recap' or true
  if chat.returned and (input_text(buffer) ~= '' or #chat.context > 0) then
    return M.send_chat(buffer, { fresh = fresh })
  end
  return M.send_chat(buffer, { retry = true, fresh = fresh })
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
  -- The message as the library holds it: the transcript shows its context items and images after its text, which
  -- an edit keeps without their lines. When llmster cannot be asked (it does not start), the transcript's lines.
  local asked, conversation = false, nil
  if chat.conversation then
    asked, conversation = pcall(client.request_sync, 'conversations/get', { id = chat.conversation })
  end
  local sent, sent_id
  for _, message in ipairs(asked and conversation.messages or {}) do
    if message.role == 'user' then sent, sent_id = message.text, message.id end
  end
  local lines = type(sent) == 'string' and vim.split(sent, '\n', { plain = true })
    or vim.api.nvim_buf_get_lines(buffer, previous + 1, answer, false)
  while #lines > 0 and lines[#lines] == '' do table.remove(lines) end
  while #lines > 0 and lines[1] == '' do table.remove(lines, 1) end
  local function edit()
    local _, row = input_text(buffer)
    local displaced = chat.edit_next or vim.api.nvim_buf_get_lines(buffer, row + 1, -1, false)
    vim.api.nvim_buf_set_lines(buffer, row + 1, -1, false, lines)
    -- The message the edit replaces: sent once another client has sent after it, the edit is refused.
    chat.edit_next, chat.edit_of = displaced, sent_id
    show_edit(buffer, 'editing the last message: sending replaces it, :LlmsterCancel leaves')
    vim.api.nvim_win_set_cursor(0, { vim.api.nvim_buf_line_count(buffer), 0 })
  end
  if chat.edit_next or typed == '' then return edit() end
  vim.ui.select({ 'Replace it with the last message', 'Keep it' }, { prompt = 'The input holds unsent text' }, function(_, index)
    if index == 1 and chats[buffer] == chat and not chat.reply then client.guard(edit) end
  end)
end

local function blank(lines) return vim.trim(table.concat(lines, '\n')) == '' end

-- Unsent input lines `first` and `second` as one, a blank line between; a blank one gives way to the other.
local function joined_input(first, second)
  if blank(first) then return second end
  if blank(second) then return first end
  local lines = vim.list_extend({}, first)
  while lines[#lines] == '' do table.remove(lines) end
  local from = 1
  while second[from] == '' do from = from + 1 end
  return vim.list_extend(vim.list_extend(lines, { '' }), second, from)
end

-- Puts the chat back in edit mode after an edit that saved nothing: the edited text is in the input area again, and
-- the input lines the edit `displaced` and those `typed` since it was sent come back when the edit is left.
function M.resume_edit(buffer, chat, displaced, typed)
  chat.edit_next = joined_input(displaced, typed)
  -- The chat is drawn again from the library: sent again, the edit replaces the last message shown then.
  chat.edit_of = nil
  chat.returned = 'edit'
  M.show_editing(buffer, chat)
end

-- After an edit that was saved: the input lines it `displaced`, never sent, come back to the input area, before what
-- was typed there while its reply streamed.
function M.give_back_displaced(buffer, displaced)
  if not displaced or blank(displaced) then return end
  local _, row = input_text(buffer)
  local typed = vim.api.nvim_buf_get_lines(buffer, row + 1, -1, false)
  if blank(typed) then
    vim.api.nvim_buf_set_lines(buffer, row + 1, -1, false, displaced)
  else
    -- Inserted above the typed text, whose lines stay as they are, a cursor in them included; a blank line between.
    local first, from, to = 1, 1, #displaced
    while typed[first] == '' do first = first + 1 end
    while displaced[from] == '' do from = from + 1 end
    while displaced[to] == '' do to = to - 1 end
    local above = vim.list_extend(vim.list_slice(displaced, from, to), { '' })
    vim.api.nvim_buf_set_lines(buffer, row + first, row + first, false, above)
  end
  client.notify('the input the edit set aside is back in the input area', vim.log.levels.INFO)
end

-- The hint beside the input header while the next send replaces the last message (drawn again after a redraw).
function M.show_editing(buffer, chat)
  show_edit(buffer, chat.edit_next and 'editing the last message: sending replaces it, :LlmsterCancel leaves' or nil)
end

-- Stops editing the last message: the input it displaced comes back.
local function leave_edit(buffer, chat)
  local _, row = input_text(buffer)
  vim.api.nvim_buf_set_lines(buffer, row + 1, -1, false, chat.edit_next)
  chat.edit_next, chat.edit_of = nil, nil
  if chat.returned == 'edit' then chat.returned = nil end
  show_edit(buffer, nil)
  client.notify('the next send is a new message again', vim.log.levels.INFO)
end

-- The chat that text from other buffers goes to: the last chat entered, else any idle chat, else a new one.
function M.chat_for_range()
  if state.last_chat and chats[state.last_chat] and not chats[state.last_chat].reply then return state.last_chat end
  for buffer, chat in pairs(chats) do
    if not chat.reply then return buffer end
  end
  return M.open()
end

-- Puts `text` into the input area of a chat (the current one, or another open chat, or a new one), after what is
-- typed there, and sends it. A chat editing its last message refuses it: sent, it would replace that message.
function M.send_text(text)
  local target = chats[vim.api.nvim_get_current_buf()] and vim.api.nvim_get_current_buf() or M.chat_for_range()
  if require_chat(target).edit_next then
    error('the chat is editing its last message: send the edit, or leave it with :LlmsterCancel, first', 0)
  end
  local typed, row = input_text(target)
  if typed ~= '' then
    vim.api.nvim_buf_set_lines(target, -1, -1, false, vim.list_extend({ '' }, lines_of(text)))
  else
    vim.api.nvim_buf_set_lines(target, row + 1, -1, false, lines_of(text))
  end
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

-- The lines of code block `n` (from 1) of the chat's last reply, as llmster finds them (rpc's codeBlocks).
function M.code_block(buffer, n)
  buffer = (buffer and buffer ~= 0) and buffer or (chats[vim.api.nvim_get_current_buf()] and vim.api.nvim_get_current_buf())
    or state.last_chat
  local chat = buffer and chats[buffer]
  if not (chat and chat.conversation) then error('no reply yet: the last chat has no conversation', 0) end
  local messages = client.request_sync('conversations/get', { id = chat.conversation }).messages
  local reply = messages[#messages]
  local blocks = reply and reply.role == 'assistant' and not isnil(reply.codeBlocks) and reply.codeBlocks or {}
  n = n or 1
  if not blocks[n] then error(string.format('the last reply has %d code block%s', #blocks, #blocks == 1 and '' or 's'), 0) end
  local lines = lines_of(state.visible((blocks[n]:gsub('\n$', ''))))
  return lines, #blocks
end

-- :LlmsterCode [N] yanks code block N of the last reply (into the unnamed register, and the clipboard's when there is
-- one); with `insert` (:LlmsterCode!) puts it below the cursor instead.
function M.copy_code(n, insert)
  local lines, count = M.code_block(nil, n)
  if insert then
    local row = vim.api.nvim_win_get_cursor(0)[1]
    vim.api.nvim_buf_set_lines(0, row, row, false, lines)
    return lines
  end
  vim.fn.setreg('"', lines, 'l')
  if vim.fn.has('clipboard') == 1 then pcall(vim.fn.setreg, '+', lines, 'l') end
  client.notify(string.format('code block %d of %d yanked (%d lines)', n or 1, count, #lines), vim.log.levels.INFO)
  return lines
end

-- Alternatives: the other answers to a message, and its other versions.

-- Whether the input still holds, unchanged, the draft the chat loaded, which another client has sent since (the
-- library's draft is gone): sent from here too, it would be there twice.
local function draft_sent_elsewhere(chat, answer, typed)
  local loaded = state.as_input(chat.draft or '')
  if loaded == '' or typed ~= loaded or chat.edit_next then return false end
  -- The library drops a draft once any face sends it (llmster-rpc(7), chat/send).
  return isnil(answer.conversation.draft) or state.as_input(answer.conversation.draft) == ''
end

-- Shows the chat's conversation again from the library, keeping the unsent input (not a draft sent elsewhere: then
-- returns true); undo starts afresh. A cursor in the input area stays where it was in it (its line and column
-- counted from the input's header), in Insert mode too, so typing goes on in the input however much the transcript
-- above it grew (another client's exchange); one in the transcript keeps its line.
function M.redraw(buffer, chat)
  local answer = client.request_sync('conversations/get', { id = chat.conversation })
  if not isnil(answer.contextMeter) then chat.meter = answer.contextMeter end
  local typed, row = input_text(buffer)
  local input = vim.api.nvim_buf_get_lines(buffer, row + 1, -1, false)
  local sent = draft_sent_elsewhere(chat, answer, typed)
  if sent then input = {} end
  local in_input = {}
  for _, window in ipairs(vim.fn.win_findbuf(buffer)) do
    local cursor = vim.api.nvim_win_get_cursor(window)
    if row >= 0 and cursor[1] - 1 >= row then in_input[window] = { cursor[1] - 1 - row, cursor[2] } end
  end
  vim.api.nvim_buf_clear_namespace(buffer, state.namespace, 0, -1)
  chat.folds = {}
  chat.fold_version = chat.fold_version + 1
  vim.bo[buffer].undolevels = -1
  render_messages(buffer, chat, answer.messages)
  vim.api.nvim_buf_set_lines(buffer, -1, -1, false, #input > 0 and input or { '' })
  vim.bo[buffer].undolevels = -123456
  local header, count = last_header(buffer, '### You'), vim.api.nvim_buf_line_count(buffer)
  for window, place in pairs(in_input) do
    local line = sent and count - 1 or math.min(header + place[1], count - 1)
    local length = #vim.api.nvim_buf_get_lines(buffer, line, line + 1, false)[1]
    -- Insert mode's cursor may stand after the line's last character (nvim_win_set_cursor allows it there).
    pcall(vim.api.nvim_win_set_cursor, window, { line + 1, sent and 0 or math.min(place[2], length) })
  end
  refresh_folds(buffer)
  M.show_editing(buffer, chat)
  return sent
end

-- conversation/changed: another process (the REPL, `llmster ask -c`, another editor) changed a conversation. An open
-- chat of it is drawn again from the library, keeping its input; one whose reply streams says so and is drawn again
-- when the reply ends.
client.on_notification('conversation/changed', function(params)
  for buffer, chat in pairs(chats) do
    if chat.conversation and chat.conversation == params.conversationId and vim.api.nvim_buf_is_loaded(buffer) then
      if chat.reply then
        chat.changed_elsewhere = true
        client.notify('this conversation changed elsewhere: it is shown again from the library when the reply ends',
          vim.log.levels.WARN)
      else
        -- Not from the notification's callback: a request waited for there would wait for this very channel.
        if chat.redraw_scheduled then return end
        chat.redraw_scheduled = true
        vim.schedule(function()
          chat.redraw_scheduled = nil
          if chats[buffer] ~= chat or chat.reply then return end
          local cleared = client.guard(M.redraw, buffer, chat)
          client.notify('this conversation changed elsewhere: it is shown again from the library'
            .. (cleared and ' (the draft in the input was sent there, so it left the input)' or ''), vim.log.levels.INFO)
        end)
      end
    end
  end
end)

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
      M.redraw(buffer, chat)
    end)
  end)
end

return M
