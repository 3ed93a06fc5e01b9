-- The JSON-RPC connection to `llmster rpc` (see llmster-rpc(7)): one child process per Neovim.
local M = {}

M.config = {
  cmd = { 'llmster' },
  coalesce_ms = 50,
  timeout = 60,
}

local state = { job = nil, next_id = 0, callbacks = {}, events = {}, notifications = {}, partial = '', info = nil }

local function isnil(value)
  return value == nil or value == vim.NIL
end
M.isnil = isnil

-- Where the child's standard error goes: Neovim's log directory where it has one, else its cache.
function M.log_path()
  local ok, directory = pcall(vim.fn.stdpath, 'log')
  if not ok or type(directory) ~= 'string' then directory = vim.fn.stdpath('cache') end
  return directory .. '/llmster.log'
end

-- Neovim's own vim.notify, told apart from a notification plugin's (which shows long text in a window of its own).
local builtin_notify = vim.notify

-- `text` on one line that the command line shows without a hit-enter prompt (`v:echospace` cells), cut with "…".
local function fitting(text)
  text = text:gsub('%s*\n%s*', ' ')
  local room = math.max(10, (tonumber(vim.v.echospace) or (vim.o.columns - 12)) - 1)
  if vim.fn.strdisplaywidth(text) <= room then return text end
  local cut = vim.fn.strcharpart(text, 0, room - 1)
  while vim.fn.strdisplaywidth(cut) > room - 1 do cut = vim.fn.strcharpart(cut, 0, vim.fn.strchars(cut) - 1) end
  return cut .. '…'
end

-- Shows `message` the way Neovim shows plugin errors: one line, no stack trace. Through Neovim's own vim.notify a
-- message wider than the command line is cut to fit it, since a wider one stops the editor at a hit-enter prompt;
-- the whole message goes to the log (M.log_path()).
function M.notify(message, level)
  local text = 'llmster: ' .. tostring(message):gsub('^llmster: ', '')
  level = level or vim.log.levels.ERROR
  if vim.notify ~= builtin_notify then return vim.notify(text, level) end
  local shown = fitting(text)
  if shown ~= text then
    local file = io.open(M.log_path(), 'a')
    if file then
      file:write(os.date('%Y-%m-%d %H:%M:%S '), text, '\n')
      file:close()
    end
  end
  -- Not vim.notify's nvim_err_writeln: from a callback it stopped at a hit-enter prompt even for a message that fits.
  local highlight = level >= vim.log.levels.ERROR and 'ErrorMsg' or (level == vim.log.levels.WARN and 'WarningMsg' or nil)
  vim.api.nvim_echo({ { shown, highlight } }, true, {})
end

-- An error whose notice the user has already had (the one that said what happened and where the typed text went):
-- raised to stop the caller, and not shown a second time by `guard`. tostring gives its message.
local shown_error = { __tostring = function(self) return self.message end }
function M.shown_error(message)
  return setmetatable({ message = tostring(message) }, shown_error)
end

-- Runs `body(...)`; an error becomes a notification instead of a stack trace. Returns body's results.
function M.guard(body, ...)
  local results = { pcall(body, ...) }
  if not results[1] then
    if getmetatable(results[2]) ~= shown_error then M.notify(results[2]) end
    return nil
  end
  return unpack(results, 2)
end

local function decode(line)
  local ok, value = pcall(vim.json.decode, line)
  if ok then return value end
  return nil
end

-- Handles one decoded message from llmster rpc: an event, a notification or a response. (The tests hand it
-- notifications whose timing a real process cannot promise.)
function M.dispatch(message)
  if message.method == 'chat/event' or message.method == 'models/progress' then
    local handler = state.events[message.params.requestId]
    if handler then M.guard(handler, message.params, message.method) end
  elseif message.method and isnil(message.id) and state.notifications[message.method] then
    for _, handler in ipairs(state.notifications[message.method]) do M.guard(handler, message.params) end
  elseif message.method == nil and not isnil(message.id) then
    local callback = state.callbacks[message.id]
    if callback then
      state.callbacks[message.id] = nil
      state.events[message.id] = nil
      M.guard(callback, not isnil(message.result) and message.result or nil, not isnil(message.error) and message.error or nil)
    end
  end
end

-- jobstart hands over lines split at newlines; the last item is the start of an unfinished line.
local function on_stdout(_, data)
  data[1] = state.partial .. data[1]
  state.partial = table.remove(data)
  for _, line in ipairs(data) do
    if line:match('%S') then
      local message = decode(line)
      if message then M.dispatch(message) end
    end
  end
end

local function on_stderr(_, data)
  if #data == 1 and data[1] == '' then return end
  local file = io.open(M.log_path(), 'a')
  if file then
    file:write(table.concat(data, '\n'))
    file:close()
  end
end

local function on_exit(_, code)
  state.job = nil
  state.partial = ''
  state.info = nil
  local callbacks = state.callbacks
  state.callbacks, state.events = {}, {}
  if code ~= 0 and code ~= 143 then
    M.notify(string.format('llmster rpc exited with status %d; its messages are in %s', code, M.log_path()))
  end
  for _, callback in pairs(callbacks) do
    M.guard(callback, nil, { message = 'llmster stopped (see ' .. M.log_path() .. ')', data = { kind = 'server_unreachable' } })
  end
end

local function send(message)
  if not (state.job and pcall(vim.fn.chansend, state.job, vim.json.encode(message) .. '\n')) then
    error('llmster rpc is not running; its messages are in ' .. M.log_path(), 0)
  end
end

-- Calls `handler(params)` for every notification `method` llmster sends outside a request (conversation/changed).
function M.on_notification(method, handler)
  state.notifications[method] = state.notifications[method] or {}
  table.insert(state.notifications[method], handler)
end

function M.running()
  return state.job ~= nil
end

-- The `initialize` answer of the running child (server URL, capabilities), or nil.
function M.info()
  return state.info
end

function M.start()
  if state.job then return end
  local cmd = vim.deepcopy(M.config.cmd)
  table.insert(cmd, 'rpc')
  vim.fn.mkdir(vim.fn.fnamemodify(M.log_path(), ':h'), 'p')
  local ok, job = pcall(vim.fn.jobstart, cmd, { on_stdout = on_stdout, on_stderr = on_stderr, on_exit = on_exit })
  if not ok or job <= 0 then
    error('cannot start ' .. table.concat(cmd, ' ') .. ' (is llmster installed? set cmd in setup())', 0)
  end
  state.job = job
  local started, info = pcall(M.request_sync, 'initialize', { protocolVersion = 1, coalesceMilliseconds = M.config.coalesce_ms })
  if not started then
    M.stop()
    error(info, 0)
  end
  state.info = info
end

function M.stop()
  if state.job then
    local job = state.job
    vim.fn.chanclose(job, 'stdin')
    if vim.fn.jobwait({ job }, 5000)[1] == -1 then vim.fn.jobstop(job) end
    state.job = nil
  end
end

-- Sends a request; `callback(result, error)`; `on_event(params, method)` gets its notifications. Returns the id.
function M.request(method, params, callback, on_event)
  if method ~= 'initialize' then M.start() end
  state.next_id = state.next_id + 1
  local id = state.next_id
  state.callbacks[id] = callback or function() end
  state.events[id] = on_event
  -- An empty Lua table would encode as [], so no parameters are sent as {}.
  if params == nil or next(params) == nil then params = vim.empty_dict() end
  send({ jsonrpc = '2.0', id = id, method = method, params = params })
  return id
end

-- Sends a request and waits for its answer: the result, or nil and the error (its data.kind says which).
function M.call(method, params)
  local done, result, failure = false, nil, nil
  local id = M.request(method, params, function(r, e) done, result, failure = true, r, e end)
  vim.wait(M.config.timeout * 1000, function() return done end, 10)
  if not done then
    -- Given up on: llmster is told to stop it, and a late answer has no one waiting for it.
    state.callbacks[id] = nil
    M.cancel_request(id)
    error('no answer to ' .. method, 0)
  end
  return result, failure
end

-- The error kind of a JSON-RPC error (`not_found`, `confirmation_required`, …), or nil.
function M.kind(failure)
  return failure and not isnil(failure.data) and failure.data.kind or nil
end

-- Sends a request and waits for its answer; a protocol error is raised as a one-line Lua error.
function M.request_sync(method, params)
  local result, failure = M.call(method, params)
  if failure then error(tostring(failure.message), 0) end
  return result
end

-- The ids of the requests sent and not answered yet, oldest first.
function M.waiting()
  local ids = vim.tbl_keys(state.callbacks)
  table.sort(ids)
  return ids
end

function M.cancel_request(id)
  if state.job then send({ jsonrpc = '2.0', method = '$/cancelRequest', params = { id = id } }) end
end

return M
