-- The options of llmster.nvim, as setup() leaves them.
local client = require('llmster.client')

local M = {}

-- The options of setup(); :help llmster-setup describes each.
M.options = {
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
    copy_code = 'gy',
    accept = 'ga',
    reject = 'gr',
  },
}

-- Merges `options` into the options; the client gets its part.
function M.setup(options)
  M.options = vim.tbl_deep_extend('force', M.options, options or {})
  client.config.cmd = M.options.cmd
  client.config.coalesce_ms = M.options.coalesce_ms
  client.config.timeout = M.options.timeout
end

return M
