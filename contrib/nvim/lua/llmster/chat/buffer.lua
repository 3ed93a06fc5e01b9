-- The state of the chat buffers, and what reads and marks their text.

local M = {}

M.namespace = vim.api.nvim_create_namespace('llmster')
M.indicator_namespace = vim.api.nvim_create_namespace('llmster_indicator')
M.context_namespace = vim.api.nvim_create_namespace('llmster_context')
M.edit_namespace = vim.api.nvim_create_namespace('llmster_edit')

-- buffer → { conversation, title, model, reply, folds, fold_version, context, fresh_next, edit_next, … }
M.chats = {}
-- The chat buffer entered last, where text from other buffers goes.
M.last_chat = nil

function M.lines_of(text)
  return vim.split(text, '\n', { plain = true })
end

-- `text` from a model, a tool or the server with its control characters shown as visible escapes in caret notation,
-- never as the raw bytes (which would travel into yanks, saves and other programs): a C0 control other than newline
-- and tab as ^@ … ^_ (ESC as ^[), DEL as ^?, a C1 control as ^[ and its 7-bit equivalent (U+009B as ^[[); carriage
-- returns are dropped, as the terminal drops them. Character by character, so pieces give what the whole gives.
function M.visible(text)
  if not text:find('[%z\1-\8\11-\31\127\194]') then return text end
  text = text:gsub('\r', '')
  text = text:gsub('[%z\1-\8\11-\31]', function(c) return '^' .. string.char(c:byte() + 64) end)
  text = text:gsub('\127', '^?')
  return (text:gsub('\194([\128-\159])', function(c) return '^[' .. string.char(c:byte() - 64) end))
end

function M.position(buffer, mark)
  return unpack(vim.api.nvim_buf_get_extmark_by_id(buffer, M.namespace, mark, {}))
end

function M.mark_at(buffer, row, col, right_gravity)
  return vim.api.nvim_buf_set_extmark(buffer, M.namespace, row, col, { right_gravity = right_gravity })
end

function M.all_lines(buffer)
  return vim.api.nvim_buf_get_lines(buffer, 0, -1, false)
end

-- The 0-based row of the last line equal to `header`, at or before `before` (0-based, exclusive).
function M.last_header(buffer, header, before)
  local lines = M.all_lines(buffer)
  for index = math.min(before or #lines, #lines), 1, -1 do
    if lines[index] == header then return index - 1 end
  end
  return nil
end

-- The text typed below the last "### You" line, and that line's 0-based row. Kept as typed (a draft keeps its first
-- line's indentation) but for the blank lines before it and the whitespace at its end; whitespace alone is ''.
function M.input_text(buffer)
  local row = M.last_header(buffer, '### You') or -1
  local lines = vim.api.nvim_buf_get_lines(buffer, row + 1, -1, false)
  return M.as_input(table.concat(lines, '\n')), row
end

-- `text` as input_text reads it from the input area.
function M.as_input(text)
  text = text:gsub('%s+$', '')
  return (text:gsub('^%s*\n', ''))
end

function M.new_input_area(buffer)
  vim.api.nvim_buf_set_lines(buffer, -1, -1, false, { '', '### You', '' })
end

-- Names the chat buffer after the conversation's title, with a number when another buffer has that name.
function M.rename_buffer(buffer, title)
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

-- The chat of `buffer`, which must be a chat with no reply streaming.
function M.require_chat(buffer)
  local chat = M.chats[buffer]
  if not chat then error('not a chat buffer: :Llmster opens one, :LlmsterSend from another buffer sends it to a chat', 0) end
  if chat.reply then error('a reply is still streaming; :LlmsterCancel stops it', 0) end
  -- An undone send leaves the library first (chat/withdraw): what comes next acts on what the buffer shows.
  if chat.withdrawing and not vim.wait(60000, function() return not chat.withdrawing end, 10) then
    error('the undone message is still being taken back from the library', 0)
  end
  return chat
end

return M
