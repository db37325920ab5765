#!/usr/bin/env bash
# Installs what a fresh machine lacks (bubblewrap for the kernel sandbox, npm
# dependencies) and builds. Safe to run again; it skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v bwrap >/dev/null 2>&1; then
  echo "setup: installing bubblewrap (the kernel sandbox around every executor)" >&2
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
  elif command -v sudo >/dev/null 2>&1; then
    sudo apt-get update -qq >/dev/null && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
  else
    echo "setup: bubblewrap is missing and cannot be installed without root: apt-get install bubblewrap" >&2
    exit 1
  fi
fi
command -v tmux >/dev/null 2>&1 || [ "$(id -u)" != 0 ] || { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >/dev/null; }

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # `npm install`, not `npm ci`: npm 11 leaves the other platforms' optional binaries of
  # @biomejs/biome out of the lockfile and then `npm ci` refuses that same lockfile.
  # With the committed lockfile in place, install still resolves exactly the locked versions.
  npm install --no-audit --no-fund
fi
npm run build
