-- Commands of llmster.nvim (Neovim 0.7+).
local function llmster() return require('llmster') end

vim.api.nvim_create_user_command('Llmster', function() llmster().open() end, { desc = 'Open an llmster chat' })
vim.api.nvim_create_user_command('LlmsterSend', function(opts)
  llmster().send(opts.line1, opts.line2, opts.range > 0)
end, { range = true, desc = 'Send the chat input, or the range (default: the buffer) to a chat' })
vim.api.nvim_create_user_command('LlmsterCancel', function() llmster().cancel() end, { desc = 'Cancel the streaming reply' })
vim.api.nvim_create_user_command('LlmsterModels', function() llmster().pick_model() end, { desc = 'Choose the chat model' })
vim.api.nvim_create_user_command('LlmsterChats', function() llmster().list_chats() end, { desc = 'List llmster conversations' })
