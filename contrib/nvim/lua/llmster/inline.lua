-- Working on code from any buffer: ask about a selection, rewrite it in place with a diff to accept or reject.
local client = require('llmster.client')
local isnil = client.isnil

local M = {}

local function llmster() return require('llmster') end

local namespace = vim.api.nvim_create_namespace('llmster_rewrite')
local pending = {} -- buffer → { first (0-based), count, old lines, request }

-- The text a rewrite asks for; setup({ rewrite_prompt = function(instruction, block) … end }) replaces it.
function M.rewrite_prompt(instruction, block)
  return 'Rewrite the following code as instructed. Answer with only the rewritten code in one fenced block, nothing else.\n\n'
    .. 'Instruction: ' .. instruction .. '\n\n' .. block
end

-- The code of a reply: its first code block as llmster finds it (rpc's codeBlocks), or the whole text without one.
function M.code_of(message)
  if isnil(message) then return {} end
  local blocks = isnil(message.codeBlocks) and {} or message.codeBlocks
  if #blocks > 0 then return vim.split(blocks[1], '\n', { plain = true }) end
  local lines = vim.split(message.text or '', '\n', { plain = true })
  while #lines > 0 and lines[#lines] == '' do table.remove(lines) end
  return lines
end

local function ask_instruction(prompt, instruction, then_do)
  if instruction then return then_do(instruction) end
  vim.ui.input({ prompt = prompt }, function(text)
    if text and vim.trim(text) ~= '' then client.guard(then_do, text) end
  end)
end

-- :LlmsterAsk: sends the range (or the whole buffer) as a fenced block with its file name and language, after an instruction.
function M.ask(first, last, has_range, instruction)
  local buffer = vim.api.nvim_get_current_buf()
  if llmster().chat(buffer) then error('this is a chat buffer: type below "### You" instead', 0) end
  local block = has_range and llmster().fence_buffer(buffer, first, last) or llmster().fence_buffer(buffer)
  ask_instruction('Ask: ', instruction, function(text)
    llmster().send_text(text .. '\n\n' .. block)
  end)
end

local function clear(buffer)
  local state = pending[buffer]
  pending[buffer] = nil
  vim.api.nvim_buf_clear_namespace(buffer, namespace, 0, -1)
  local keys = llmster().config.keymaps or {}
  for _, lhs in ipairs({ keys.accept, keys.reject }) do
    if lhs then pcall(vim.api.nvim_buf_del_keymap, buffer, 'n', lhs) end
  end
  return state
end

-- Shows the proposal: the new lines replace the old ones (highlighted as added), the old ones stay visible above as deleted.
-- The rewrite is one undo block of its own (setting 'undolevels' closes the one before), so a reject can undo it.
local function show_diff(buffer, state, new_lines)
  vim.api.nvim_buf_call(buffer, function() vim.cmd('let &l:undolevels = &l:undolevels') end)
  state.before = vim.api.nvim_buf_get_lines(buffer, 0, -1, false)
  vim.api.nvim_buf_set_lines(buffer, state.first, state.first + state.count, false, new_lines)
  state.tick = vim.api.nvim_buf_get_changedtick(buffer)
  state.count = #new_lines
  state.ready = true
  local old = vim.tbl_map(function(line) return { { line, 'DiffDelete' } } end, state.old)
  vim.api.nvim_buf_set_extmark(buffer, namespace, state.first, 0, { virt_lines = old, virt_lines_above = true })
  for row = state.first, state.first + #new_lines - 1 do
    vim.api.nvim_buf_set_extmark(buffer, namespace, row, 0, { line_hl_group = 'DiffAdd' })
  end
  local keys = llmster().config.keymaps or {}
  if keys.accept then
    vim.api.nvim_buf_set_keymap(buffer, 'n', keys.accept, '', { noremap = true, callback = function() M.accept(buffer) end, desc = 'llmster: keep the rewrite' })
  end
  if keys.reject then
    vim.api.nvim_buf_set_keymap(buffer, 'n', keys.reject, '', { noremap = true, callback = function() M.reject(buffer) end, desc = 'llmster: undo the rewrite' })
  end
  client.notify('rewrite ready: :LlmsterAccept keeps it, :LlmsterReject restores the old lines', vim.log.levels.INFO)
end

-- :LlmsterRewrite: asks for a rewrite of the lines `first`–`last` and shows it as a diff in place.
function M.rewrite(first, last, instruction)
  local buffer = vim.api.nvim_get_current_buf()
  if pending[buffer] then error('a rewrite is waiting: :LlmsterAccept or :LlmsterReject it first', 0) end
  local old = vim.api.nvim_buf_get_lines(buffer, first - 1, last, false)
  local block = llmster().fence_buffer(buffer, first, last)
  ask_instruction('Rewrite: ', instruction, function(text)
    local prompt = (llmster().config.rewrite_prompt or M.rewrite_prompt)(text, block)
    local state = { first = first - 1, count = #old, old = old }
    local folder = llmster().config.rewrite_folder
    local params = { text = prompt, folderId = folder and require('llmster.library').folder_id(folder) or nil,
      model = llmster().config.rewrite_model }
    -- Waiting only once sent: a request that never leaves (llmster cannot start) leaves nothing to accept or reject.
    state.request = client.request('chat/send', params, function(result, failure)
      if pending[buffer] ~= state or not vim.api.nvim_buf_is_valid(buffer) then
        -- Rejected while it was written: it leaves the library, as a rejected rewrite does.
        if result and state.rejected then client.request('conversations/delete', { id = result.conversationId }) end
        return
      end
      vim.api.nvim_buf_clear_namespace(buffer, namespace, 0, -1)
      if failure or result.status ~= 'complete' then
        pending[buffer] = nil
        error('the rewrite failed: ' .. (failure and failure.message or result.status), 0)
      end
      state.conversation = result.conversationId
      show_diff(buffer, state, M.code_of(result.message))
      vim.api.nvim_exec_autocmds('User', { pattern = 'LlmsterRewrite', modeline = false })
    end)
    pending[buffer] = state
    vim.api.nvim_buf_set_extmark(buffer, namespace, first - 1, 0,
      { virt_text = { { '  llmster is rewriting…', 'Comment' } }, virt_text_pos = 'eol' })
  end)
end

-- Keeps the rewritten lines.
function M.accept(buffer)
  buffer = buffer or vim.api.nvim_get_current_buf()
  if not clear(buffer) then error('no rewrite is waiting here', 0) end
end

-- Takes the rewrite back: undone when nothing changed the buffer since, so 'modified' is as before it and `u` does not
-- bring it back; otherwise the old lines are put back as a change.
local function restore(buffer, state)
  if vim.api.nvim_buf_get_changedtick(buffer) == state.tick then
    vim.api.nvim_buf_call(buffer, function() vim.cmd('silent undo') end)
    if vim.deep_equal(vim.api.nvim_buf_get_lines(buffer, 0, -1, false), state.before) then return end
    vim.api.nvim_buf_call(buffer, function() vim.cmd('silent redo') end)
  end
  vim.api.nvim_buf_set_lines(buffer, state.first, state.first + state.count, false, state.old)
end

-- Restores the lines as they were before the rewrite (or stops one being written); the rewrite leaves the library.
function M.reject(buffer)
  buffer = buffer or vim.api.nvim_get_current_buf()
  local state = clear(buffer)
  if not state then error('no rewrite is waiting here', 0) end
  if state.ready then restore(buffer, state) end
  state.rejected = true
  if state.conversation then client.request('conversations/delete', { id = state.conversation }) end
  if state.request and not state.ready then client.cancel_request(state.request) end
end

-- Whether a rewrite of `buffer` waits for a decision (its proposal is shown once the reply is complete).
function M.pending(buffer)
  return pending[buffer or vim.api.nvim_get_current_buf()]
end

return M
