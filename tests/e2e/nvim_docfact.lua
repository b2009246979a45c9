-- A headless Neovim session driving docfact like a user would (run by test_neovim.py):
-- start the server for a file, wait for its diagnostics, hover, ask for the code actions
-- of one diagnostic, apply the quick fix, and see the diagnostic go.
-- Works with Neovim 0.7 (Debian's) up to 0.11; writes what it saw to $DOCFACT_E2E_OUT.
-- With DOCFACT_E2E_MODE=model-save (and a model in $DOCFACT_E2E_OPTIONS): write the file
-- with :write and wait, with no keystroke, for the model's finding instead.

local out_path = os.getenv("DOCFACT_E2E_OUT")
local file = os.getenv("DOCFACT_E2E_FILE")
local root = os.getenv("DOCFACT_E2E_ROOT")
local cmd = vim.fn.json_decode(os.getenv("DOCFACT_E2E_CMD"))
local timeout = tonumber(os.getenv("DOCFACT_E2E_TIMEOUT") or "30000")
local mode = os.getenv("DOCFACT_E2E_MODE") or "quick-fix"
local options = os.getenv("DOCFACT_E2E_OPTIONS")

local result = { nvim = tostring(vim.version().major) .. "." .. tostring(vim.version().minor) ..
  "." .. tostring(vim.version().patch), steps = {} }

local function step(name)
  table.insert(result.steps, name)
end

local function finish()
  local handle = io.open(out_path, "w")
  handle:write(vim.fn.json_encode(result))
  handle:close()
  vim.cmd("qall!")
end

local function diagnostics(bufnr)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(found, {
      lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
      code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code),
      source = d.source, message = d.message, severity = d.severity,
    })
  end
  table.sort(found, function(a, b) return a.lnum < b.lnum end)
  return found
end

local function codes(bufnr)
  local list = {}
  for _, d in ipairs(diagnostics(bufnr)) do
    table.insert(list, tostring(d.code))
  end
  table.sort(list)
  return table.concat(list, ",")
end

-- The LSP form of a vim.diagnostic, as Neovim's own code-action request builds it.
local function to_lsp(d)
  local lsp = vim.deepcopy((d.user_data or {}).lsp or {})
  lsp.range = lsp.range or {
    start = { line = d.lnum, character = d.col },
    ["end"] = { line = d.end_lnum, character = d.end_col },
  }
  lsp.message = lsp.message or d.message
  lsp.source = lsp.source or d.source
  lsp.code = lsp.code or d.code
  lsp.severity = lsp.severity or d.severity
  return lsp
end

-- The rules' findings first (nothing goes to a model before a save), then :write, then the
-- model's DF301 with no keystroke after the save.
local function model_save(bufnr, client_id)
  vim.wait(timeout, function() return codes(bufnr) ~= "" end, 20)
  result.before = codes(bufnr)
  step("opened")
  vim.cmd("write")
  step("saved")
  local ok = vim.wait(timeout, function() return codes(bufnr):find("DF301") ~= nil end, 20)
  result.after = codes(bufnr)
  if ok then step("model finding") end
  vim.lsp.stop_client(client_id)
  vim.wait(10000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 20)
end

local function main()
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  local config = {
    name = "docfact",
    cmd = cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = "ws" } },
    -- DF102 (a preview rule) selected by its code, as in the LSP tests: the shop's `cuont`.
    init_options = options and vim.fn.json_decode(options)
      or { docfact = { debounceMs = 10, select = { "DF102" } } },
  }
  local client_id
  if vim.lsp.start then -- 0.8+
    client_id = vim.lsp.start(config, { bufnr = bufnr })
  else -- 0.7
    client_id = vim.lsp.start_client(config)
    vim.lsp.buf_attach_client(bufnr, client_id)
  end
  result.client_id = client_id
  step("started")
  if mode == "model-save" then
    return model_save(bufnr, client_id)
  end

  -- 1. Diagnostics arrive.
  local ok = vim.wait(timeout, function() return codes(bufnr) == "DF101,DF102,DF202" end, 20)
  result.before = diagnostics(bufnr)
  if not ok then
    result.error = "no diagnostics: " .. codes(bufnr)
    return
  end
  step("diagnostics")
  local client = vim.lsp.get_client_by_id(client_id)
  result.offset_encoding = client.offset_encoding

  -- 2. Hover on the function name of the wrong docstring.
  local target
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    if code == "DF101" then target = d end
  end
  local def_line = vim.fn.search("^def restock", "n") - 1
  local hover = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = def_line, character = 6 },
  }, timeout)
  for _, answer in pairs(hover or {}) do
    if answer.result and answer.result.contents then
      result.hover = answer.result.contents.value
    end
  end
  step("hover")

  -- 3. Code actions for the DF101 diagnostic; apply the quick fix.
  local lsp_diagnostic = to_lsp(target)
  local answers = vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = lsp_diagnostic.range,
    context = { diagnostics = { lsp_diagnostic }, only = { "quickfix" } },
  }, timeout)
  result.actions = {}
  local chosen
  for _, answer in pairs(answers or {}) do
    for _, action in ipairs(answer.result or {}) do
      table.insert(result.actions, action.title)
      if action.isPreferred and action.edit then chosen = action end
    end
  end
  if not chosen then
    result.error = "no preferred quick fix among the code actions"
    return
  end
  vim.lsp.util.apply_workspace_edit(chosen.edit, client.offset_encoding)
  result.applied = chosen.title
  result.fixed_line = vim.api.nvim_buf_get_lines(bufnr, target.lnum, target.lnum + 1, false)[1]
  step("applied")

  -- 4. The edit reaches the server (didChange) and the diagnostic goes.
  ok = vim.wait(timeout, function() return codes(bufnr) == "DF102,DF202" end, 20)
  result.after = diagnostics(bufnr)
  if not ok then
    result.error = "the diagnostic did not go: " .. codes(bufnr)
    return
  end
  step("gone")

  -- 5. Stop the server cleanly (shutdown + exit).
  vim.lsp.stop_client(client_id)
  ok = vim.wait(timeout, function() return vim.lsp.get_client_by_id(client_id) == nil end, 20)
  if ok then step("stopped") end
end

vim.schedule(function()
  local ok, err = pcall(main)
  if not ok then result.error = tostring(err) end
  finish()
end)
