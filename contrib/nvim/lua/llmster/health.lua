-- :checkhealth llmster — the Neovim version, the llmster executable, and whether LM Studio answers.
local M = {}

-- Neovim 0.10 has vim.health.start/ok/…; 0.8 and 0.9 vim.health.report_*; 0.7 the health module.
local function reporter()
  local health = vim.health or require('health')
  return {
    start = health.start or health.report_start,
    ok = health.ok or health.report_ok,
    info = health.info or health.report_info,
    warn = health.warn or health.report_warn,
    error = health.error or health.report_error,
  }
end

function M.check()
  local report = reporter()
  local client = require('llmster.client')
  report.start('llmster')
  if vim.fn.has('nvim-0.7') == 1 then report.ok('Neovim 0.7 or newer') else report.error('llmster.nvim needs Neovim 0.7 or newer') end

  local executable = client.config.cmd[1]
  if vim.fn.executable(executable) ~= 1 then
    report.error(executable .. ' is not executable', { 'Install llmster (make install), or set cmd in require("llmster").setup()' })
    return
  end
  report.ok('executable: ' .. vim.fn.exepath(executable))

  local started, failure = pcall(client.start)
  if not started then
    report.error('llmster rpc does not start: ' .. tostring(failure), { 'See ' .. client.log_path() })
    return
  end
  local info = client.info()
  report.ok(string.format('llmster rpc %s speaks protocol %d', info.serverInfo.version, info.protocolVersion))
  local listed, answer = pcall(client.request_sync, 'models/list', { refresh = true })
  if listed then
    local loaded = vim.tbl_filter(function(model) return model.loaded == true end, answer.models)
    report.ok(string.format('LM Studio answers at %s: %d models, %d loaded', info.server, #answer.models, #loaded))
  else
    report.warn('LM Studio does not answer at ' .. tostring(info.server) .. ': ' .. tostring(answer),
      { 'Start it with `lms server start`, or set LLMSTER_SERVER / the server setting (llmster config)' })
  end
  report.info('the child\'s messages go to ' .. client.log_path())
end

return M
