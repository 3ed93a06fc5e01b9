-- Reasoning and tool output as folds of the chat windows ('foldexpr', 'foldtext').
local config = require('llmster.config')
local state = require('llmster.chat.buffer')
local chats = state.chats
local position = state.position

local M = {}

-- Registers a fold over the rows from mark `start` to mark `stop` (a mark at column 0 ends the fold on the row before).
function M.add_fold(chat, fold)
  table.insert(chat.folds, fold)
  chat.fold_version = chat.fold_version + 1
  return fold
end

-- Notes the fold's first line, by which fold_ranges recognises a fold that undo and redo displaced.
function M.remember_first_line(buffer, fold)
  local first = position(buffer, fold.start)
  fold.first_line = first and vim.api.nvim_buf_get_lines(buffer, first, first + 1, false)[1]
end

function M.fold_ranges(buffer, chat)
  local key = vim.api.nvim_buf_get_changedtick(buffer) .. ':' .. chat.fold_version
  if chat.fold_cache and chat.fold_cache.key == key then return chat.fold_cache.ranges end
  local ranges = {}
  for _, fold in ipairs(chat.folds) do
    local first = position(buffer, fold.start)
    local last, col = position(buffer, fold.stop)
    if first and last and col == 0 and last > first then last = last - 1 end
    -- Undo and redo do not bring marks back where they were: a fold whose first line changed is dropped.
    local intact = first and last and last >= first
      and (not fold.first_line or vim.api.nvim_buf_get_lines(buffer, first, first + 1, false)[1] == fold.first_line)
    if intact then table.insert(ranges, { first + 1, last + 1, fold }) end
  end
  chat.fold_cache = { key = key, ranges = ranges }
  return ranges
end

-- 'foldexpr' of chat windows: reasoning and tool output are folds of level 1.
function M.foldexpr(lnum)
  local buffer = vim.api.nvim_get_current_buf()
  local chat = chats[buffer]
  if not chat then return 0 end
  for _, range in ipairs(M.fold_ranges(buffer, chat)) do
    if lnum == range[1] then return '>1' end
    if lnum > range[1] and lnum <= range[2] then return 1 end
  end
  return 0
end

-- 'foldtext' of chat windows: the fold's one-line summary, such as "▸ Thought for 4.2 s".
function M.foldtext()
  local buffer = vim.api.nvim_get_current_buf()
  local chat = chats[buffer]
  if chat then
    for _, range in ipairs(M.fold_ranges(buffer, chat)) do
      if range[1] == vim.v.foldstart then
        local summary = range[3].summary
        if type(summary) == 'function' then summary = summary() end
        local count = vim.v.foldend - vim.v.foldstart + 1
        return string.format('%s (%d %s)', summary, count, count == 1 and 'line' or 'lines')
      end
    end
  end
  return vim.fn.foldtext()
end

-- The folds of a chat as { first row, last row (1-based), summary } (the summary is what a closed fold shows).
function M.folds(buffer)
  buffer = buffer or vim.api.nvim_get_current_buf()
  local chat = chats[buffer]
  local result = {}
  for _, range in ipairs(chat and M.fold_ranges(buffer, chat) or {}) do
    local summary = range[3].summary
    table.insert(result, { range[1], range[2], type(summary) == 'function' and summary() or summary })
  end
  return result
end

local foldexpr = "v:lua.require'llmster.chat.folds'.foldexpr(v:lnum)"

-- Sets up a window showing a chat; one that already showed it keeps its folds as the user left them.
function M.setup_window(window)
  vim.api.nvim_win_call(window, function()
    if vim.wo.foldexpr == foldexpr and vim.wo.foldmethod == 'expr' then return end
    vim.opt_local.foldmethod = 'expr'
    vim.opt_local.foldexpr = foldexpr
    vim.opt_local.foldtext = "v:lua.require'llmster.chat.folds'.foldtext()"
    vim.opt_local.foldminlines = 0
    vim.opt_local.foldenable = config.options.fold_reasoning
    vim.opt_local.foldlevel = 0
    vim.opt_local.wrap = true
    vim.opt_local.linebreak = true
  end)
end

-- Makes the windows of `buffer` evaluate 'foldexpr' again (a fold added over existing lines).
function M.refresh_folds(buffer)
  for _, window in ipairs(vim.fn.win_findbuf(buffer)) do
    vim.api.nvim_win_call(window, function() vim.opt_local.foldexpr = vim.wo.foldexpr end)
  end
end

-- Opens every reasoning and tool-output fold in the windows of the chat, or closes them all again.
function M.toggle_folds(buffer)
  buffer = buffer or vim.api.nvim_get_current_buf()
  for _, window in ipairs(vim.fn.win_findbuf(buffer)) do
    vim.api.nvim_win_call(window, function()
      vim.opt_local.foldlevel = vim.wo.foldlevel == 0 and 1 or 0
    end)
  end
end

return M
