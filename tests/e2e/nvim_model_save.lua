-- A headless Neovim session (run by test_neovim.py): a model is configured (the scripted
-- server), the file is written with :write, and the model's finding must appear as a
-- diagnostic with no keystroke after the save. Writes what it saw to $DOCFACT_E2E_OUT.

local out_path = os.getenv("DOCFACT_E2E_OUT")
local file = os.getenv("DOCFACT_E2E_FILE")
local root = os.getenv("DOCFACT_E2E_ROOT")
local cmd = vim.fn.json_decode(os.getenv("DOCFACT_E2E_CMD"))
local options = vim.fn.json_decode(os.getenv("DOCFACT_E2E_OPTIONS"))
local timeout = tonumber(os.getenv("DOCFACT_E2E_TIMEOUT") or "120000")
local result = { steps = {} }

local function codes(bufnr)
  local list = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(list, tostring(d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)))
  end
  table.sort(list)
  return table.concat(list, ",")
end

local function main()
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  local config = {
    name = "docfact",
    cmd = cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = "ws" } },
    init_options = options,
  }
  local client_id
  if vim.lsp.start then -- 0.8+
    client_id = vim.lsp.start(config, { bufnr = bufnr })
  else -- 0.7
    client_id = vim.lsp.start_client(config)
    vim.lsp.buf_attach_client(bufnr, client_id)
  end
  local attached = vim.wait(timeout, function()
    local client = vim.lsp.get_client_by_id(client_id)
    return client ~= nil and client.initialized
  end, 20)
  if not attached then
    result.error = "the server did not start"
    return
  end
  -- The first analysis, with no model finding: nothing is sent to a model before a save.
  vim.wait(timeout, function() return codes(bufnr) ~= "" end, 20)
  result.before = codes(bufnr)
  table.insert(result.steps, "opened")
  vim.cmd("write")
  table.insert(result.steps, "saved")
  local ok = vim.wait(timeout, function() return codes(bufnr):find("DF301") ~= nil end, 20)
  result.after = codes(bufnr)
  if ok then table.insert(result.steps, "model finding") end
  vim.lsp.stop_client(client_id)
  vim.wait(10000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 20)
end

vim.schedule(function()
  local ok, err = pcall(main)
  if not ok then result.error = tostring(err) end
  local handle = io.open(out_path, "w")
  handle:write(vim.fn.json_encode(result))
  handle:close()
  vim.cmd("qall!")
end)
