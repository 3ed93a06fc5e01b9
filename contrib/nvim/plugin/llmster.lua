-- Commands of llmster.nvim (Neovim 0.7+); :help llmster-commands.
if vim.g.loaded_llmster then return end
vim.g.loaded_llmster = true

local function llmster() return require('llmster') end
local function library() return require('llmster.library') end
local function inline() return require('llmster.inline') end
local function guard(body, ...) return require('llmster.client').guard(body, ...) end

local function command(name, body, options)
  options = options or {}
  vim.api.nvim_create_user_command(name, function(opts) guard(body, opts) end, options)
end

local function argument(opts)
  return opts.args ~= '' and opts.args or nil
end

command('Llmster', function(opts) llmster().open(argument(opts)) end,
  { nargs = '?', desc = 'Open a new llmster chat, or the saved conversation given by id or title' })
command('LlmsterSend', function(opts) llmster().send(opts.line1, opts.line2, opts.range > 0) end,
  { range = true, desc = 'Send the chat input, or the range (default: the buffer) to a chat' })
command('LlmsterAsk', function(opts) inline().ask(opts.line1, opts.line2, opts.range > 0, argument(opts)) end,
  { range = true, nargs = '*', desc = 'Send the range as a fenced block with an instruction' })
command('LlmsterRewrite', function(opts) inline().rewrite(opts.line1, opts.line2, argument(opts)) end,
  { range = true, nargs = '*', desc = 'Rewrite the range in place; accept or reject the diff' })
command('LlmsterAccept', function() inline().accept() end, { desc = 'Keep the rewritten lines' })
command('LlmsterReject', function() inline().reject() end, { desc = 'Restore the lines before the rewrite' })
command('LlmsterAdd', function(opts)
  local target = argument(opts)
  llmster().add_context(target or vim.api.nvim_get_current_buf())
end, { nargs = '?', complete = 'file', desc = 'Attach the current buffer, or a file, to the next message of a chat' })
command('LlmsterImage', function(opts) llmster().add_image(opts.args) end,
  { nargs = 1, complete = 'file', desc = 'Send an image with the next message of a chat (for a model that sees images)' })
command('LlmsterPreview', function() llmster().preview() end,
  { desc = 'Show the request the next send would make (a dry run: nothing is sent)' })
command('LlmsterCancel', function() llmster().cancel() end, { desc = 'Cancel the streaming reply' })
command('LlmsterRegenerate', function() llmster().regenerate() end, { desc = 'Ask again for the last answer' })
command('LlmsterEditLast', function() llmster().edit_last() end, { desc = 'Edit and resend the last message' })
command('LlmsterFresh', function(opts)
  local how = argument(opts)
  if how and how ~= 'recap' then error('LlmsterFresh takes nothing or "recap", not ' .. how, 0) end
  llmster().fresh(nil, how == 'recap')
end, { nargs = '?', complete = function() return { 'recap' } end,
  desc = 'Resend the last message with a fresh server context (recap: starting with a recap of the earlier turns)' })
command('LlmsterFork', function(opts)
  local reply = argument(opts)
  if reply and not tonumber(reply) then error('LlmsterFork takes a reply number, not ' .. reply, 0) end
  library().fork(tonumber(reply))
end, { nargs = '?', desc = 'Start a new conversation from reply N (default: the last) and open it' })
command('LlmsterAlternatives', function(opts) llmster().pick_alternative(nil, opts.bang) end,
  { bang = true, desc = 'Choose another answer to the last message (!: another version of it)' })
command('LlmsterModels', function() llmster().pick_model() end, { desc = 'Choose the chat model' })
command('LlmsterSystem', function(opts) llmster().set_system_prompt(opts.args) end,
  { nargs = '*', desc = 'Set the chat system prompt (none: clear it)' })
command('LlmsterReasoning', function(opts) llmster().set_reasoning(opts.args) end,
  { nargs = 1, complete = function() return { 'off', 'low', 'medium', 'high', 'on', 'default' } end,
    desc = 'Set the chat reasoning effort' })
local function presets()
  local ok, names = pcall(llmster().preset_names)
  return ok and names or {}
end
command('LlmsterPreset', function(opts)
  local name = argument(opts)
  if name then return llmster().apply_preset(name) end
  local buffer = vim.api.nvim_get_current_buf()
  llmster().pick_preset('Apply preset', function(choice) llmster().apply_preset(choice, buffer) end)
end, { nargs = '?', complete = presets, desc = 'Give the chat a preset (system prompt, model, settings)' })
command('LlmsterNewWithPreset', function(opts)
  local name = argument(opts)
  if name then return llmster().open_with_preset(name) end
  llmster().pick_preset('New chat with preset', llmster().open_with_preset)
end, { nargs = '?', complete = presets, desc = 'Open a new chat that starts with a preset' })
command('LlmsterToggleFolds', function() llmster().toggle_folds() end, { desc = 'Show or hide reasoning and tool output' })
command('LlmsterChats', function() library().list() end, { desc = 'List llmster conversations' })
command('LlmsterSearch', function(opts) library().search(argument(opts), opts.bang) end,
  { nargs = '*', bang = true, desc = 'Search the library (! lists the hits in a buffer)' })
command('LlmsterRename', function(opts) library().rename(argument(opts)) end, { nargs = '*', desc = 'Rename the conversation' })
command('LlmsterMove', function(opts) library().move(argument(opts)) end,
  { nargs = '?', desc = 'Move the conversation to a folder (Work/Research; / is the top level)' })
command('LlmsterPin', function() library().toggle_pin() end, { desc = 'Pin or unpin the conversation' })
command('LlmsterDelete', function(opts) library().delete(opts.bang) end, { bang = true, desc = 'Delete the conversation' })
command('LlmsterExport', function(opts) library().export(opts.args) end,
  { nargs = 1, complete = 'file', desc = 'Write the conversation to a .llmster file' })
command('LlmsterImport', function(opts) library().import(opts.args) end,
  { nargs = 1, complete = 'file', desc = 'Add a .llmster file\'s conversation to the library and open it' })
command('LlmsterImportLMStudio', function(opts) library().import_lmstudio(opts.args) end,
  { nargs = '?', complete = 'dir', desc = 'Bring LM Studio\'s own chats into the library, after a preview' })
command('LlmsterBackup', function(opts)
  if opts.bang then return library().backup_encrypted(opts.args) end
  library().backup(opts.args)
end, { nargs = 1, bang = true, complete = 'file', desc = 'Write the whole library to one file (!: encrypted, the password asked twice)' })
command('LlmsterServer', function(opts) library().server(argument(opts)) end,
  { nargs = '?', desc = 'Switch the server profile (server.NAME in llmster\'s config)' })
command('LlmsterCode', function(opts)
  local n = argument(opts)
  if n and not tonumber(n) then error('LlmsterCode takes a block number, not ' .. n, 0) end
  llmster().copy_code(tonumber(n), opts.bang)
end, { nargs = '?', bang = true, desc = 'Yank code block N (default 1) of the last reply (!: put it below the cursor)' })
command('LlmsterIntegrations', function(opts) llmster().set_integrations(opts.fargs) end,
  { nargs = '*', desc = 'Let the chat use these configured integrations (none: turn them off)' })
command('LlmsterReload', function() llmster().reload_config() end, { desc = 'Make llmster read its config file again' })
command('LlmsterActions', function() llmster().actions() end, { desc = 'Pick an llmster action' })
