-- llmster.nvim: chat with LM Studio models through `llmster rpc` (see llmster-rpc(7) and :help llmster).
-- Neovim 0.7+, no dependencies.
--
-- require('llmster') is the plugin's one public table; the work is done in its modules, split as
-- codecompanion's are:
--   llmster.config         the options of setup()
--   llmster.client         the `llmster rpc` process and its JSON-RPC requests
--   llmster.chat           chat buffers: open, send, regenerate, edit the last message, alternatives, drafts
--   llmster.chat.buffer    the chats' state and what reads and marks their text
--   llmster.chat.stream    a streaming reply drawn into its buffer
--   llmster.chat.folds     reasoning and tool output as folds
--   llmster.chat.keymaps   the keys of a chat buffer
--   llmster.context        buffers and files sent with a message
--   llmster.settings       system prompt, reasoning, integrations, presets, models; the statusline
--   llmster.actions        :LlmsterActions
--   llmster.inline, llmster.library, llmster.health   ask/rewrite in place, the library, :checkhealth
local client = require('llmster.client')
local config = require('llmster.config')

local M = {}

M.config = config.options

-- Merges `options` (:help llmster-setup) into the plugin's options.
function M.setup(options)
  config.setup(options)
  M.config = config.options
end

-- Copies the functions `names` of `module` into this table.
local function export(module, names)
  for _, name in ipairs(names) do M[name] = assert(module[name], name) end
end

export(client, { 'start', 'stop', 'running', 'request', 'request_sync', 'cancel_request', 'notify', 'guard' })
export(require('llmster.chat'), { 'open', 'chat', 'streaming', 'send_chat', 'send_text', 'send', 'regenerate', 'fresh',
  'editing', 'edit_last', 'cancel', 'format_alternative', 'pick_alternative', 'preview', 'code_block', 'copy_code' })
export(require('llmster.chat.buffer'), { 'rename_buffer' })
export(require('llmster.chat.folds'), { 'foldexpr', 'foldtext', 'folds', 'toggle_folds' })
export(require('llmster.chat.stream'), { 'indicator' })
export(require('llmster.context'), { 'fence', 'fence_buffer', 'fence_file', 'show_context', 'add_context', 'add_image',
  'context' })
export(require('llmster.settings'), { 'set_system_prompt', 'set_reasoning', 'set_integrations', 'reload_config',
  'preset_names', 'pick_preset', 'apply_preset', 'open_with_preset', 'format_model', 'models', 'pick_model', 'statusline' })
export(require('llmster.actions'), { 'actions' })
M.palette = require('llmster.actions').palette

-- Kept for compatibility: the library list.
function M.list_chats()
  return require('llmster.library').list()
end

return M
