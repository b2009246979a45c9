#!/usr/bin/env bash
# Builds the extension from a clean checkout: dependencies from package-lock.json, the
# esbuild bundle, the unit tests, then the .vsix (docfact-<version>.vsix in vscode-client/).
set -euo pipefail
cd "$(dirname "$0")/.."
npm ci --no-audit --no-fund
npm run build
npm test
npx --no-install vsce package --no-dependencies --allow-missing-repository
ls -l ./*.vsix
