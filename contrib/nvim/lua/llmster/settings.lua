-- The settings of a chat: system prompt, reasoning, integrations, presets and the model; the statusline.
local client = require('llmster.client')
local state = require('llmster.chat.buffer')
local chats = state.chats
local require_chat = state.require_chat
local isnil = client.isnil

local M = {}

-- Makes the next send start a fresh server context when `result` says a new system prompt needs one; says so
-- after `done` (what was done, if anything) in one message, since two in a row ask for Enter.
local function note_fresh_context(chat, result, done)
  local fresh = result.needsFreshContext == true
  if fresh then chat.fresh_next = true end
  local parts = {}
  if done then table.insert(parts, done) end
  if fresh then table.insert(parts, 'the new system prompt takes effect with a fresh server context: the next message starts one') end
  if #parts > 0 then client.notify(table.concat(parts, '; '), vim.log.levels.INFO) end
  return result
end

local function settings(buffer, params, on_unsaved)
  local chat = chats[buffer]
  if not chat then error('not a chat buffer', 0) end
  if not chat.conversation then return on_unsaved(chat) end
  params.conversationId = chat.conversation
  return note_fresh_context(chat, client.request_sync('conversations/setSettings', params))
end

-- Sets the chat's system prompt (empty: none).
function M.set_system_prompt(prompt, buffer)
  buffer = buffer or vim.api.nvim_get_current_buf()
  return settings(buffer, { systemPrompt = prompt }, function(chat) chat.system_prompt = prompt ~= '' and prompt or nil end)
end

-- Sets the chat's reasoning effort (one of the model's options; "default" clears it).
function M.set_reasoning(effort, buffer)
  buffer = buffer or vim.api.nvim_get_current_buf()
  return settings(buffer, { settings = { reasoning = effort } }, function(chat) chat.reasoning = effort ~= 'default' and effort or nil end)
end

-- Lets the chat use the configured integrations `names` (MCP servers, LM Studio plugins; {} turns them off), as the
-- REPL's /integrations does; a chat without a conversation sends them with its first message.
function M.set_integrations(names, buffer)
  buffer = (buffer and buffer ~= 0) and buffer or vim.api.nvim_get_current_buf()
  local chat = require_chat(buffer)
  local configured = vim.tbl_map(function(i) return i.name end, client.request_sync('integrations/list', {}).integrations)
  for _, name in ipairs(names) do
    if not vim.tbl_contains(configured, name) then
      error(string.format('no integration named %s; configured: %s', name, #configured > 0 and table.concat(configured, ', ')
        or 'none (add lines such as "integration.NAME = mcp/playwright" to llmster\'s config)'), 0)
    end
  end
  local said = #names > 0 and table.concat(names, ', ') or 'off'
  if not chat.conversation then
    chat.integrations = names
    return client.notify('integrations ' .. said .. ' from the first message', vim.log.levels.INFO)
  end
  -- vim.json encodes an empty Lua table as [], which turns them all off.
  local answer = client.request_sync('conversations/setIntegrations', { conversationId = chat.conversation, integrations = names })
  client.notify('integrations ' .. said .. (isnil(answer.notice) and '' or (' (' .. answer.notice .. ')')), vim.log.levels.INFO)
end

-- Presets: the REPL's named system prompts, models and settings.

-- Makes llmster read its config file again (it also does when the file changed and nothing streams); returns the
-- names of the presets.
function M.reload_config()
  local names = vim.tbl_map(function(preset) return preset.name end, client.request_sync('config/reload', {}).presets)
  client.notify(string.format('configuration read again (%d presets)', #names), vim.log.levels.INFO)
  return names
end

-- The names of the configured presets.
function M.preset_names()
  return vim.tbl_map(function(preset) return preset.name end, client.request_sync('presets/list', {}).presets)
end

local function known_preset(name)
  if not vim.tbl_contains(M.preset_names(), name) then error('there is no preset ' .. name, 0) end
  return name
end

-- Whether preset `name` has a template (preset.NAME.template), which fills the next message as the REPL's /preset does.
function M.has_template(name)
  for _, preset in ipairs(client.request_sync('presets/list', {}).presets) do
    if preset.name == name then return not isnil(preset.template) end
  end
  return false
end

-- Asks for a configured preset with vim.ui.select (each with its summary), then calls `choose(name)`.
function M.pick_preset(prompt, choose)
  local presets = client.request_sync('presets/list', {}).presets
  if #presets == 0 then error('no presets: add lines such as "preset.NAME.system = …" to llmster\'s config', 0) end
  vim.ui.select(presets, {
    prompt = prompt, format_item = function(preset) return preset.name .. '  ' .. (isnil(preset.summary) and '' or preset.summary) end,
  }, function(choice) if choice then client.guard(choose, choice.name) end end)
end

-- Gives the chat a preset's system prompt, model and settings (from its first message when it has none yet).
function M.apply_preset(name, buffer)
  buffer = (buffer and buffer ~= 0) and buffer or vim.api.nvim_get_current_buf()
  local chat = require_chat(buffer)
  if M.has_template(name) then chat.template_preset = name end
  if not chat.conversation then
    chat.preset = known_preset(name)
    client.notify('preset ' .. name .. ' applies from the first message', vim.log.levels.INFO)
    return
  end
  local result = client.request_sync('presets/apply', { conversationId = chat.conversation, name = name })
  if not isnil(result.modelKey) then chat.model = result.modelKey end
  return note_fresh_context(chat, result, 'preset ' .. name .. ' applied')
end

-- Opens a new chat that starts with preset `name`.
function M.open_with_preset(name)
  known_preset(name)
  local buffer = require('llmster.chat').open()
  chats[buffer].preset = name
  if M.has_template(name) then chats[buffer].template_preset = name end
  return buffer
end

-- Models.

local function size(bytes)
  if bytes >= 1e9 then return string.format('%.1f GB', bytes / 1e9) end
  return string.format('%.0f MB', bytes / 1e6)
end

function M.format_model(model)
  local features = {}
  local capabilities = isnil(model.capabilities) and {} or model.capabilities
  if capabilities.vision == true then table.insert(features, 'vision') end
  if capabilities.trained_for_tool_use == true then table.insert(features, 'tools') end
  if not isnil(capabilities.reasoning) then table.insert(features, 'reasoning') end
  return string.format('%-32s %-7s %9s  %s', model.key, model.loaded == true and 'loaded' or '',
    size(model.size_bytes or 0), table.concat(features, ', '))
end

function M.models()
  return client.request_sync('models/list', {}).models
end

-- :LlmsterModels: choose the model of the current chat, loaded under llmster's load policy.
function M.pick_model()
  local buffer = vim.api.nvim_get_current_buf()
  local chat = chats[buffer]
  if not chat then error('not a chat buffer: :Llmster opens one', 0) end
  local models = vim.tbl_filter(function(m) return m.canChat == true end, M.models())
  vim.ui.select(models, { prompt = 'Model', format_item = M.format_model }, function(choice)
    if not (choice and chats[buffer]) then return end
    local previous = chat.model
    chat.model = choice.key
    -- Under the load policy either way: a chat with no conversation yet gives its earlier choice.
    local method, params = 'models/select', { conversationId = chat.conversation, model = choice.key }
    if not chat.conversation then method, params = 'models/selectPending', { model = choice.key, previous = previous } end
    client.request(method, params, function(result, failure)
      if failure then return client.notify(failure.message) end
      if not isnil(result.contextMeter) and chats[buffer] == chat then chat.meter = result.contextMeter end
      if isnil(result.loaded) then client.notify(choice.key .. ' is the chat\'s model', vim.log.levels.INFO) end
    end, function(step)
      if step.type == 'loading' then client.notify('loading ' .. tostring(step.model) .. '…', vim.log.levels.INFO) end
      if step.type == 'loaded' then
        client.notify(string.format('%s loaded in %.1f s', tostring(step.instanceId), tonumber(step.loadTimeSeconds) or 0), vim.log.levels.INFO)
      end
    end)
  end)
end

-- For 'statusline': the chat's model, its context meter and a streaming indicator; '' outside chats.
function M.statusline()
  local chat = chats[vim.api.nvim_get_current_buf()]
  if not chat then return '' end
  local parts = { chat.model or 'default model' }
  -- The engine's context meter, as the REPL's prompt shows it ("ctx 3.1k/8k 39%").
  if chat.meter then table.insert(parts, chat.meter.label) end
  if chat.reply then table.insert(parts, chat.reply.indicator_text or 'streaming…') end
  return 'llmster: ' .. table.concat(parts, ' · ')
end


return M
