-- Run after the README's init.lua (test_neovim.py): the file given on the command line is
-- open; wait for docfact's diagnostics and write what a user sees to $DOCFACT_E2E_OUT.
local out_path = os.getenv("DOCFACT_E2E_OUT")
local timeout = tonumber(os.getenv("DOCFACT_E2E_TIMEOUT") or "30000")
local bufnr = vim.api.nvim_get_current_buf()
local result = { filetype = vim.bo[bufnr].filetype }

local function codes()
  local list = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(list, tostring(d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)))
  end
  table.sort(list)
  return table.concat(list, ",")
end

local ok = vim.wait(timeout, function() return codes() ~= "" end, 50)
vim.wait(500) -- let a late publish of the same version settle
result.codes = codes()
result.arrived = ok
-- With DOCFACT_E2E_SAVE_FOR (a code, e.g. the model's DF301): :write, then wait, with no
-- keystroke, for a diagnostic of that code.
local wanted = os.getenv("DOCFACT_E2E_SAVE_FOR")
if wanted and ok then
  vim.cmd("write")
  result.saved_arrived = vim.wait(timeout, function()
    return vim.tbl_contains(vim.split(codes(), ","), wanted)
  end, 50)
  result.codes_after_save = codes()
end
for _, client in ipairs((vim.lsp.get_clients or vim.lsp.get_active_clients)({ bufnr = bufnr })) do
  result.client = client.name
  result.root_dir = client.config.root_dir
end
result.virtual_text = vim.diagnostic.config().virtual_text and true or false
-- What is drawn beside the lines: the diagnostics' extmarks with virtual text.
local drawn = 0
for _, namespace in pairs(vim.api.nvim_get_namespaces()) do
  for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(bufnr, namespace, 0, -1, { details = true })) do
    if mark[4].virt_text then drawn = drawn + 1 end
  end
end
result.virtual_text_marks = drawn
local handle = io.open(out_path, "w")
handle:write(vim.fn.json_encode(result))
handle:close()
vim.cmd("qall!")
