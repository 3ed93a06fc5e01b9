-- The llmster library in Neovim: list, search, rename, move, pin and delete conversations.
local client = require('llmster.client')
local isnil = client.isnil

local M = {}

local function llmster() return require('llmster') end

-- One line of the library list: pin, folder and title, and for a fork where it came from.
function M.format(conversation)
  local folder = isnil(conversation.folderPath) and '' or ('[' .. conversation.folderPath .. '] ')
  local origin = conversation.forkedFrom
  local fork = isnil(origin) and '' or string.format('  (fork of "%s" at reply %d)', origin.displayTitle, origin.reply)
  return string.format('%s %s%s%s', conversation.pinned == true and '*' or ' ', folder, conversation.displayTitle, fork)
end

-- The conversation an action applies to: the library line under the cursor, or the current chat's.
local function current()
  local buffer = vim.api.nvim_get_current_buf()
  local ids = vim.b[buffer].llmster_ids
  if ids then
    local id = ids[vim.api.nvim_win_get_cursor(0)[1]]
    if id then return id end
    error('no conversation on this line', 0)
  end
  local chat = llmster().chat(buffer)
  if chat and chat.conversation then return chat.conversation end
  error('no conversation here: use it in a chat buffer that has a reply, or in :LlmsterChats', 0)
end

local function refresh_views(conversation)
  for _, buffer in ipairs(vim.api.nvim_list_bufs()) do
    local chat = llmster().chat(buffer)
    if chat and conversation and chat.conversation == conversation.id then
      chat.title = conversation.displayTitle
      llmster().rename_buffer(buffer, chat.title)
    end
    if vim.api.nvim_buf_is_loaded(buffer) and vim.b[buffer].llmster_library then M.fill(buffer) end
  end
end

local function list_buffer(name)
  local buffer = vim.api.nvim_create_buf(true, true)
  pcall(vim.api.nvim_buf_set_name, buffer, name)
  return buffer
end

local function set_list(buffer, lines, ids)
  vim.bo[buffer].modifiable = true
  vim.api.nvim_buf_set_lines(buffer, 0, -1, false, lines)
  vim.bo[buffer].modifiable = false
  vim.b[buffer].llmster_ids = ids
end

local function list_keymaps(buffer, keys)
  for lhs, action in pairs(keys) do
    vim.api.nvim_buf_set_keymap(buffer, 'n', lhs, '', { noremap = true, silent = true, callback = function() client.guard(action) end })
  end
end

-- Fills a library buffer with the conversations, pinned first.
function M.fill(buffer)
  local conversations = client.request_sync('conversations/list', {}).conversations
  local lines, ids = {}, {}
  for _, conversation in ipairs(conversations) do
    table.insert(lines, M.format(conversation))
    table.insert(ids, conversation.id)
  end
  set_list(buffer, lines, ids)
end

-- :LlmsterChats: the library; <CR> opens, r renames, m moves, p pins, d deletes, f forks, / searches, R refreshes.
function M.list()
  local buffer = list_buffer('llmster: library')
  vim.b[buffer].llmster_library = true
  M.fill(buffer)
  list_keymaps(buffer, {
    ['<CR>'] = function() llmster().open(current()) end,
    r = function() M.rename() end,
    m = function() M.move() end,
    p = function() M.toggle_pin() end,
    d = function() M.delete() end,
    f = function() M.fork() end,
    ['/'] = function() M.search() end,
    R = function() M.fill(buffer) end,
  })
  vim.api.nvim_set_current_buf(buffer)
  return buffer
end

-- Renames the conversation (asks with vim.ui.input when `title` is nil).
function M.rename(title)
  local id = current()
  local function apply(text)
    if not text or vim.trim(text) == '' then return end
    refresh_views(client.request_sync('conversations/rename', { id = id, title = vim.trim(text) }))
  end
  if title then return apply(title) end
  -- Starts from the current title, to be edited rather than typed again.
  local conversation = client.request_sync('conversations/get', { id = id }).conversation
  local current_title = isnil(conversation.title) and '' or conversation.title
  vim.ui.input({ prompt = 'Title: ', default = current_title }, function(text) client.guard(apply, text) end)
end

-- The id of the folder at `path` ("Work/Research"), created with its parents when missing; nil for "" or "/".
function M.folder_id(path)
  local parts = vim.tbl_filter(function(part) return part ~= '' end, vim.split(path, '/', { plain = true }))
  if #parts == 0 then return nil end
  local folders = client.request_sync('folders/list', {}).folders
  local parent, walked = nil, ''
  for _, name in ipairs(parts) do
    walked = walked == '' and name or (walked .. '/' .. name)
    local found
    for _, folder in ipairs(folders) do
      if folder.path == walked then found = folder end
    end
    found = found or client.request_sync('folders/create', { name = name, parentId = parent })
    parent = found.id
  end
  return parent
end

-- Moves the conversation to the folder `path` (nested with "/"; "" or "/" is the top level).
function M.move(path)
  local id = current()
  local function apply(text)
    if not text then return end
    local folder = M.folder_id(vim.trim(text))
    refresh_views(client.request_sync('conversations/move', { id = id, folderId = folder or vim.NIL }))
  end
  if path then return apply(path) end
  local folders = client.request_sync('folders/list', {}).folders
  local paths = vim.tbl_map(function(folder) return folder.path end, folders)
  table.sort(paths)
  table.insert(paths, 1, '/')
  table.insert(paths, 'New folder…')
  vim.ui.select(paths, { prompt = 'Move to folder' }, function(choice)
    if choice == 'New folder…' then
      vim.ui.input({ prompt = 'Folder (Work/Research): ' }, function(text) client.guard(apply, text) end)
    elseif choice then
      client.guard(apply, choice)
    end
  end)
end

-- :LlmsterFork [N]: a new conversation from reply N (default: the last) of the conversation, opened in a chat; the
-- original is unchanged. Returns the fork's buffer.
function M.fork(reply)
  local result = client.request_sync('conversations/fork', { conversationId = current(), atReply = reply })
  local origin = result.forkedFrom
  local buffer = llmster().open(result.conversation.id)
  refresh_views(nil)
  client.notify(string.format('forked at reply %d of "%s"; the original is unchanged', origin.reply, origin.displayTitle),
    vim.log.levels.INFO)
  return buffer
end

-- Pins the conversation, or unpins it when it is pinned.
function M.toggle_pin()
  local id = current()
  local conversation = client.request_sync('conversations/get', { id = id }).conversation
  refresh_views(client.request_sync(conversation.pinned == true and 'conversations/unpin' or 'conversations/pin', { id = id }))
end

-- Deletes the conversation after a confirmation (`force` skips it); a chat buffer showing it is wiped with it.
function M.delete(force)
  local id = current()
  local open = vim.tbl_filter(function(buffer)
    local chat = llmster().chat(buffer)
    return chat ~= nil and chat.conversation == id
  end, vim.api.nvim_list_bufs())
  if not force then
    -- Names the conversation: from the library list, the line under the cursor is easy to mistake.
    local name = client.request_sync('conversations/get', { id = id }).conversation.displayTitle
    local question = string.format('Delete "%s"%s?', name, #open > 0 and ' (its open chat closes)' or '')
    if vim.fn.confirm(question, '&Yes\n&No', 2) ~= 1 then return end
  end
  client.request_sync('conversations/delete', { id = id })
  for _, buffer in ipairs(open) do
    -- Nothing left to keep a draft in.
    llmster().chat(buffer).conversation = nil
    vim.api.nvim_buf_delete(buffer, { force = true })
  end
  refresh_views(nil)
end

-- :LlmsterExport {file}: writes the conversation (the current chat's, or the library line's) to a .llmster file.
function M.export(path)
  local written = client.request_sync('transfer/export', { conversationId = current(), path = vim.fn.fnamemodify(vim.fn.expand(path), ':p') }).path
  client.notify('exported to ' .. written, vim.log.levels.INFO)
  return written
end

-- :LlmsterImport {file}: adds the conversation of a .llmster file to the library and opens it. A file that continues
-- another server's context, or was imported before, is asked about with vim.ui.select; `done(buffer)` gets the chat.
function M.import(path, done)
  done = done or function() end
  local params = { path = vim.fn.fnamemodify(vim.fn.expand(path), ':p') }
  local function finish(result, failure)
    if failure then error('the import failed: ' .. tostring(failure.message), 0) end
    done(llmster().open(result.conversation.id))
  end
  local result, failure = client.call('transfer/import', params)
  local kind = client.kind(failure)
  if kind == 'confirmation_required' then
    vim.ui.select({ 'keep', 'drop' }, {
      prompt = 'The file continues another server\'s context: keep it, or start afresh (drop)?',
    }, function(choice)
      if choice then client.guard(function() finish(client.call('transfer/import', vim.tbl_extend('force', params, { continuation = choice }))) end) end
    end)
  elseif kind == 'already_imported' then
    vim.ui.select({ 'Open the conversation this library holds', 'Import a copy' }, { prompt = 'This library already holds it' }, function(_, index)
      if index == 1 then client.guard(function() done(llmster().open(failure.data.conversationId)) end) end
      if index == 2 then client.guard(function() finish(client.call('transfer/import', vim.tbl_extend('force', params, { asNew = true }))) end) end
    end)
  else
    finish(result, failure)
  end
end

-- :LlmsterImportLMStudio [{dir}]: LM Studio's own desktop chats (read, never changed, from {dir} or where LM Studio
-- keeps them), previewed, then imported after a yes; a chat imported before is left out. Returns rpc's answer.
function M.import_lmstudio(directory)
  local params = (directory and directory ~= '') and { directory = vim.fn.fnamemodify(vim.fn.expand(directory), ':p') } or {}
  local preview = client.request_sync('transfer/lmstudio', vim.tbl_extend('force', params, { dryRun = true }))
  local lines = { string.format('%d chats, %d messages, %d folders in %s', preview.chats, preview.messages, #preview.folders,
    preview.directory) }
  if preview.importedBefore > 0 then table.insert(lines, string.format('%d imported before', preview.importedBefore)) end
  for _, item in ipairs(preview.missingImages) do table.insert(lines, 'image not found: ' .. item.image .. ' (' .. item.file .. ')') end
  for _, item in ipairs(preview.unreadable) do table.insert(lines, 'cannot be read: ' .. item.file .. ' (' .. item.reason .. ')') end
  if vim.fn.confirm(table.concat(lines, '\n') .. '\nImport them?', '&Yes\n&No', 2) ~= 1 then return preview end
  local answer = client.request_sync('transfer/lmstudio', params)
  client.notify(string.format('imported %d chats%s', answer.imported,
    answer.alreadyThere > 0 and string.format(' (%d were there already)', answer.alreadyThere) or ''), vim.log.levels.INFO)
  return answer
end

-- :LlmsterBackup {file}: writes the whole library to one file (encrypted with a password, when one is given).
function M.backup(path, password)
  local answer = client.request_sync('library/backup',
    { path = vim.fn.fnamemodify(vim.fn.expand(path), ':p'), password = (password and password ~= '') and password or nil })
  client.notify(string.format('%d conversations backed up to %s%s', answer.statistics.conversations or 0, answer.path,
    answer.encrypted == true and ', encrypted' or ''), vim.log.levels.INFO)
  return answer
end

-- :LlmsterBackup! {file}: the backup encrypted with a password, asked twice (a typo would make it unrecoverable).
function M.backup_encrypted(path)
  local password = vim.fn.inputsecret('Backup password: ')
  if password == '' then error('no password: the backup is not written', 0) end
  if vim.fn.inputsecret('The password again: ') ~= password then
    error('the passwords differ: the backup is not written', 0)
  end
  return M.backup(path, password)
end

-- :LlmsterServer [name]: the server profile (server.NAME in llmster's config) this session talks to; without a name,
-- chosen with vim.ui.select among servers/list's.
function M.server(name)
  local function use(choice)
    local answer = client.request_sync('servers/use', { server = choice })
    client.notify('server ' .. (isnil(answer.currentProfile) and '' or (answer.currentProfile .. ' ')) .. answer.current,
      vim.log.levels.INFO)
    return answer
  end
  if name then return use(name) end
  local servers = client.request_sync('servers/list', {}).servers
  if #servers == 0 then error('no server profiles: add lines such as "server.NAME = URL" to llmster\'s config', 0) end
  vim.ui.select(servers, { prompt = 'Server', format_item = function(server)
    return string.format('%s %s  %s', server.current == true and '*' or ' ', server.name, server.url)
  end }, function(choice) if choice then client.guard(use, choice.name) end end)
end

local function hit_line(hit)
  local snippet = not isnil(hit.snippet) and hit.snippet:gsub('%s+', ' ') or ''
  return string.format('%s — %s', hit.displayTitle, snippet)
end

-- :LlmsterSearch: full-text search; picks a hit with vim.ui.select, or with `in_buffer` lists them in a buffer.
function M.search(query, in_buffer)
  local function run(text)
    if not text or vim.trim(text) == '' then return end
    local hits = client.request_sync('conversations/search', { query = text }).hits
    if #hits == 0 then return client.notify('nothing matches ' .. text, vim.log.levels.INFO) end
    if in_buffer then return M.results(text, hits) end
    vim.ui.select(hits, { prompt = 'Conversations', format_item = hit_line }, function(hit)
      if hit then client.guard(llmster().open, hit.conversationId) end
    end)
  end
  if query then return run(query) end
  vim.ui.input({ prompt = 'Search: ' }, function(text) client.guard(run, text) end)
end

-- A buffer listing search hits; <CR> opens the conversation of the line.
function M.results(query, hits)
  local buffer = list_buffer('llmster: search ' .. query)
  local lines, ids = {}, {}
  for _, hit in ipairs(hits) do
    table.insert(lines, hit_line(hit))
    table.insert(ids, hit.conversationId)
  end
  set_list(buffer, lines, ids)
  list_keymaps(buffer, { ['<CR>'] = function() llmster().open(current()) end })
  vim.api.nvim_set_current_buf(buffer)
  return buffer
end

return M
