#!/usr/bin/env bash
# Builds the extension from a clean checkout: dependencies from package-lock.json, the
# extension's version set to docfact's (server/docfact/__init__.py, the one place it is
# written), docfact's own wheel and those of its dependencies into wheels/ (the .vsix carries
# them, to install docfact into an environment that lacks it, offline when the platform and
# Python are the build's), the esbuild bundle, the unit tests, then the .vsix
# (docfact-<version>.vsix in vscode-client/). The wheel is built by the Python in
# $DOCFACT_PYTHON, else the repository's .venv, else python3.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(cd .. && pwd)"
python="${DOCFACT_PYTHON:-$root/.venv/bin/python}"
[ -x "$python" ] || python="$(command -v python3)"
version="$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' "$root/server/docfact/__init__.py")"
[ -n "$version" ] || { echo "no __version__ in server/docfact/__init__.py" >&2; exit 1; }

npm ci --no-audit --no-fund
npm pkg set version="$version"
rm -rf wheels
# setuptools builds in the checkout's build/ folder and reuses what it finds there (a module
# deleted since would reach the next wheel): left as it was found.
[ -e "$root/build" ] && had_build=1 || had_build=0
"$python" -m pip wheel --quiet --wheel-dir wheels "$root"
[ "$had_build" = 1 ] || rm -rf "$root/build"
ls wheels/"docfact-$version-py3-none-any.whl"
npm run build
npm test
rm -f ./*.vsix
npx --no-install vsce package --no-dependencies --allow-missing-repository
ls -l ./*.vsix
