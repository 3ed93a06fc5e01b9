-- :LlmsterActions: every action of the plugin in one picker.
local client = require('llmster.client')
local chat = require('llmster.chat')
local library = require('llmster.library')
local settings = require('llmster.settings')
local require_chat = require('llmster.chat.buffer').require_chat

local M = {}


M.palette = {
  { 'New chat', function() chat.open() end },
  { 'New chat with a preset', function() settings.pick_preset('New chat with preset', settings.open_with_preset) end },
  { 'Send', function() chat.send_chat() end },
  { 'Cancel the reply', function() chat.cancel() end },
  { 'Show the request the next send would make (dry run)', function() chat.preview() end },
  { 'Regenerate the last answer', function() chat.regenerate() end },
  { 'Edit the last message', function() chat.edit_last() end },
  { 'Resend with a fresh server context', function() chat.fresh() end },
  { 'Resend with a fresh server context and a recap', function() chat.fresh(nil, true) end },
  { 'Fork: a new conversation from the last reply', function() library.fork() end },
  { 'Choose an alternative answer (or version) of the last message', function() chat.pick_alternative() end },
  { 'Choose the model', function() settings.pick_model() end },
  { 'Show or hide reasoning', function() require('llmster.chat.folds').toggle_folds() end },
  { 'Library', function() library.list() end },
  { 'Search the library', function() library.search() end },
  { 'Rename the chat', function() library.rename() end },
  { 'Move the chat to a folder', function() library.move() end },
  { 'Pin or unpin the chat', function() library.toggle_pin() end },
  { 'Delete the chat', function() library.delete() end },
  { 'Attach an image to the next message', function()
    local buffer = vim.api.nvim_get_current_buf()
    vim.ui.input({ prompt = 'Image: ', completion = 'file' }, function(path)
      if path and path ~= '' then client.guard(require('llmster.context').add_image, path, buffer) end
    end)
  end },
  { 'Add the alternate buffer as context', function() require('llmster.context').add_context(vim.fn.bufnr('#'), vim.api.nvim_get_current_buf()) end },
  { 'Set the system prompt', function()
    vim.ui.input({ prompt = 'System prompt: ' }, function(text) if text then client.guard(settings.set_system_prompt, text) end end)
  end },
  { 'Apply a preset', function()
    local buffer = vim.api.nvim_get_current_buf()
    require_chat(buffer)
    settings.pick_preset('Apply preset', function(name) settings.apply_preset(name, buffer) end)
  end },
  { 'Read the configuration again', function() settings.reload_config() end },
  { 'Choose the integrations (tools)', function()
    local buffer = vim.api.nvim_get_current_buf()
    vim.ui.input({ prompt = 'Integrations (space-separated, empty: none): ' }, function(text)
      if text then client.guard(settings.set_integrations, vim.split(vim.trim(text), '%s+', { trimempty = true }), buffer) end
    end)
  end },
  { 'Set the reasoning effort', function()
    vim.ui.select({ 'off', 'low', 'medium', 'high', 'on', 'default' }, { prompt = 'Reasoning' }, function(choice)
      if choice then client.guard(settings.set_reasoning, choice) end
    end)
  end },
}

-- :LlmsterActions: every action of the plugin in a vim.ui.select picker.
function M.actions()
  vim.ui.select(M.palette, { prompt = 'llmster', format_item = function(item) return item[1] end }, function(choice)
    if choice then client.guard(choice[2]) end
  end)
end

return M
