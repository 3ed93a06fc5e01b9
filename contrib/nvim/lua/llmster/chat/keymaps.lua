-- The keys of a chat buffer.
local client = require('llmster.client')
local config = require('llmster.config')

local M = {}

-- The chat function `name`, looked up when the key is pressed (llmster.chat requires this module).
local function chat(name)
  return function(buffer) require('llmster.chat')[name](buffer) end
end

local function map(buffer, modes, lhs, action, desc)
  if not lhs then return end
  for _, mode in ipairs(modes) do
    vim.api.nvim_buf_set_keymap(buffer, mode, lhs, '', {
      noremap = true, silent = true, desc = desc,
      callback = function() client.guard(action, buffer) end,
    })
  end
end

-- Maps the keys of setup()'s `keymaps` in chat `buffer`.
function M.chat_keymaps(buffer)
  local keys = config.options.keymaps or {}
  local send = keys.send
  if type(send) == 'table' then
    map(buffer, { 'n' }, send.n, chat('send_chat'), 'llmster: send')
    -- Sending from insert mode leaves it, so the cursor can follow the reply rather than type into it.
    map(buffer, { 'i' }, send.i, function(target)
      vim.cmd('stopinsert')
      require('llmster.chat').send_chat(target)
    end, 'llmster: send')
  else
    map(buffer, { 'n' }, send, chat('send_chat'), 'llmster: send')
  end
  map(buffer, { 'n' }, keys.cancel, chat('cancel'), 'llmster: cancel the reply')
  map(buffer, { 'n' }, keys.regenerate, chat('regenerate'), 'llmster: regenerate the last answer')
  map(buffer, { 'n' }, keys.edit_last, chat('edit_last'), 'llmster: edit the last message')
  map(buffer, { 'n' }, keys.alternatives, chat('pick_alternative'), 'llmster: choose an alternative of the last message')
  map(buffer, { 'n' }, keys.fresh, chat('fresh'), 'llmster: resend with a fresh server context')
  map(buffer, { 'n' }, keys.toggle_folds, require('llmster.chat.folds').toggle_folds, 'llmster: show or hide reasoning and tool output')
  map(buffer, { 'n' }, keys.copy_code, function() require('llmster.chat').copy_code(vim.v.count1) end,
    'llmster: yank code block [count] of the last reply')
  map(buffer, { 'n' }, keys.actions, function() require('llmster.actions').actions() end, 'llmster: actions')
end

return M
