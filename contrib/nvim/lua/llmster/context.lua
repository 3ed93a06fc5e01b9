-- Buffers and files sent with a chat's next message as llmster's context items; fenced blocks for :LlmsterAsk.
local state = require('llmster.chat.buffer')
local chats = state.chats
local last_header = state.last_header

local M = {}

-- A fenced block holding `lines`, headed by the file name and the language.
function M.fence(name, filetype, lines)
  local longest = 2
  for _, line in ipairs(lines) do
    local ticks = line:match('^%s*(`+)')
    if ticks and #ticks > longest then longest = #ticks end
  end
  local fence = string.rep('`', longest + 1)
  local body = table.concat(lines, '\n')
  return string.format('%s:\n%s%s\n%s\n%s', name, fence, filetype or '', body, fence)
end

-- Languages whose fence name differs from the file extension (Neovim 0.7 cannot match a file name to a filetype).
local languages = { py = 'python', js = 'javascript', ts = 'typescript', rs = 'rust', md = 'markdown', txt = 'text',
  h = 'c', hpp = 'cpp', cc = 'cpp', rb = 'ruby', yml = 'yaml', kt = 'kotlin', el = 'lisp', hs = 'haskell' }

-- The language of a fence for `path`: Neovim's filetype from 0.8 on, else one from the extension.
local function filetype_of(path)
  local ok, filetype = pcall(vim.filetype.match, { filename = path })
  if ok and type(filetype) == 'string' then return filetype end
  local extension = vim.fn.fnamemodify(path, ':e')
  return languages[extension] or extension
end

function M.fence_buffer(buffer, first, last)
  local name = vim.api.nvim_buf_get_name(buffer)
  name = name ~= '' and vim.fn.fnamemodify(name, ':~:.') or ('buffer ' .. buffer)
  local filetype = vim.bo[buffer].filetype
  if filetype == '' then filetype = filetype_of(name) end
  if first then name = string.format('%s (lines %d-%d)', name, first, last) end
  local lines = vim.api.nvim_buf_get_lines(buffer, first and first - 1 or 0, last or -1, false)
  return M.fence(name, filetype, lines)
end

function M.fence_file(path)
  if vim.fn.filereadable(path) ~= 1 then error('cannot read ' .. path, 0) end
  return M.fence(vim.fn.fnamemodify(path, ':~:.'), filetype_of(path), vim.fn.readfile(path))
end

-- Shows a chat's attached context beside its input header.
function M.show_context(chat)
  local buffer
  for b, c in pairs(chats) do if c == chat then buffer = b end end
  if not buffer then return end
  vim.api.nvim_buf_clear_namespace(buffer, state.context_namespace, 0, -1)
  if #chat.context == 0 then return end
  local names = vim.tbl_map(function(item) return item.name end, chat.context)
  local row = last_header(buffer, '### You')
  vim.api.nvim_buf_set_extmark(buffer, state.context_namespace, row, 0,
    { virt_text = { { '  context: ' .. table.concat(names, ', '), 'Comment' } }, virt_text_pos = 'eol' })
end

-- `950 B`, `3.2 KB`, `1.5 MB`: llmster's size of a context item (decimal units).
local function size(bytes)
  if bytes < 1000 then return bytes .. ' B' end
  local value, unit = bytes / 1000, 'KB'
  if bytes >= 1000000 then value, unit = bytes / 1000000, 'MB' end
  return (string.format(value >= 100 and '%.0f %s' or '%.1f %s', value, unit):gsub('%.0 ', ' '))
end

-- The chip llmster shows for an item (`notes.md · 3.2 KB · ~800 tokens`, as the REPL's /file prints it): the text's
-- size, and the context meter's estimate of its block as the request carries it (heading, fence, text).
local function chip(name, heading, text)
  local longest = 0
  for run in text:gmatch('`+') do longest = math.max(longest, #run) end
  local fence = string.rep('`', math.max(3, longest + 1))
  local block = heading .. '\n' .. fence .. '\n' .. text .. (text:sub(-1) == '\n' and '' or '\n') .. fence
  return string.format('%s · %s · ~%d tokens', name, size(#text), math.floor((#block + 3) / 4))
end

-- Says what was attached, as the REPL's /file does.
local function confirm(chip_line)
  require('llmster.client').notify('added ' .. chip_line .. '; it goes with the next message', vim.log.levels.INFO)
end

-- Attaches a buffer (a number) or a file (a path) to a chat; it is sent with the next message, which it says.
function M.add_context(target, chat_buffer)
  local current = vim.api.nvim_get_current_buf()
  chat_buffer = chat_buffer or (chats[current] and current) or require('llmster.chat').chat_for_range()
  if target == chat_buffer then
    target = vim.fn.bufnr('#')
    if target < 1 or chats[target] then error('no buffer to add: name a file, or use it from the buffer to add', 0) end
  end
  local chat = chats[chat_buffer]
  local item
  if type(target) == 'string' and M.is_image(target) then return M.add_image(target, chat_buffer) end
  if type(target) == 'number' then
    local name = vim.api.nvim_buf_get_name(target)
    item = { name = name ~= '' and vim.fn.fnamemodify(name, ':~:.') or ('buffer ' .. target), buffer = target }
    item.chip = chip(item.name, item.name .. ':', table.concat(vim.api.nvim_buf_get_lines(target, 0, -1, false), '\n'))
  else
    local path = vim.fn.expand(target)
    if vim.fn.filereadable(path) ~= 1 then error('cannot read ' .. path, 0) end
    item = { name = vim.fn.fnamemodify(path, ':~:.'), path = vim.fn.fnamemodify(path, ':p') }
    local file = io.open(item.path, 'rb')
    local content = file and file:read('*a') or ''
    if file then file:close() end
    -- llmster names a file by its name in its directory (the send gives it so), as the reopened chat's chips show it.
    local tail = vim.fn.fnamemodify(item.path, ':t')
    item.chip = chip(tail, 'File ' .. tail .. ':', content)
  end
  table.insert(chat.context, item)
  M.show_context(chat)
  confirm(item.chip)
  return chat_buffer
end

-- Whether `path` is named as an image llmster sends as one (PNG, JPEG, GIF, WebP).
function M.is_image(path)
  local extension = vim.fn.fnamemodify(path, ':e'):lower()
  return extension == 'png' or extension == 'jpg' or extension == 'jpeg' or extension == 'gif' or extension == 'webp'
end

-- :LlmsterImage {file}: sends the image with the chat's next message (llmster reads it then), for a model that sees
-- images; :LlmsterAdd on an image file does the same.
function M.add_image(path, chat_buffer)
  local current = vim.api.nvim_get_current_buf()
  chat_buffer = chat_buffer or (chats[current] and current) or require('llmster.chat').chat_for_range()
  local full = vim.fn.fnamemodify(vim.fn.expand(path), ':p')
  if vim.fn.filereadable(full) ~= 1 then error('cannot read ' .. path, 0) end
  local chat = chats[chat_buffer]
  table.insert(chat.context, { name = 'image ' .. vim.fn.fnamemodify(full, ':t'), image = full })
  M.show_context(chat)
  confirm(string.format('%s · image · %s', vim.fn.fnamemodify(full, ':t'), size(vim.fn.getfsize(full))))
  return chat_buffer
end

-- The names of the context a chat will send with its next message.
function M.context(buffer)
  local chat = chats[buffer or vim.api.nvim_get_current_buf()]
  return chat and vim.tbl_map(function(item) return item.name end, chat.context) or {}
end

return M
