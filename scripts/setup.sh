#!/usr/bin/env bash
# Installs what a fresh machine lacks (Debian packages, npm dependencies) and
# builds. Safe to run again; it skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

node_major=$(node -p 'process.versions.node.split(".")[0]')
case "$node_major" in
  20 | 22 | 24) ;;
  *)
    echo "setup: Node $(node --version) is not supported; use Node 20, 22 or 24 (see README)" >&2
    exit 1
    ;;
esac

# Debian packages, one per line as "command package # why", so additions merge cleanly.
apt_packages=(
  "bwrap bubblewrap # the kernel sandbox around every executor"
  "cc gcc # builds skate-confine, the helper every sandboxed command runs under"
  "rg ripgrep # grep and glob search with it (JavaScript fallback without)"
  "tmux tmux # the terminal UI tests drive a real terminal"
  "jq jq # the headless tests read Skate's JSON output with the jq lines scripts use"
)
if [ "$node_major" = 20 ]; then
  # isolated-vm 5.0 (js_eval on Node 20) compiles from source; 6.x ships binaries for 22 and 24.
  apt_packages+=(
    "g++ g++ # compiles isolated-vm 5.0"
    "make make # runs node-gyp's build"
    "python3 python3 # runs node-gyp"
  )
fi

missing=()
for entry in "${apt_packages[@]}"; do
  read -r cmd pkg _ <<<"$entry"
  command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo=()
  if [ "$(id -u)" != 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "setup: ${missing[*]} missing and cannot be installed without root: apt-get install ${missing[*]}" >&2
      exit 1
    fi
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get update -qq >/dev/null
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Reinstall when the lockfile changed or node_modules was installed under another Node major:
# js_eval's isolated-vm is an optional dependency per Node major (see shared/js-eval-runtime.ts).
installed_for=node_modules/.skate-node-major
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ] ||
  [ "$(cat "$installed_for" 2>/dev/null)" != "$node_major" ]; then
  if [ "$node_major" = 20 ]; then
    echo "setup: npm install (compiles isolated-vm 5.0 for Node 20: a few minutes)" >&2
  else
    echo "setup: npm install" >&2
  fi
  # `npm install`, not `npm ci`: npm 11 leaves the other platforms' optional binaries of
  # @biomejs/biome out of the lockfile and then `npm ci` refuses that same lockfile.
  # With the committed lockfile in place, install still resolves exactly the locked versions.
  # Only errors are shown: the isolated-vm build that does not apply to this Node fails and is
  # skipped quietly (an optional dependency), which is expected.
  npm install --no-audit --no-fund --loglevel=error
  echo "$node_major" >"$installed_for"
fi
npm run build

# js_eval is optional: say so when this Node's isolated-vm did not install, rather than fail setup.
node --input-type=module -e "
  import { createRequire } from 'node:module';
  import { jsEvalRuntime } from './dist/shared/js-eval-runtime.js';
  const found = jsEvalRuntime(process.versions.node, createRequire(process.cwd() + '/package.json').resolve);
  if (found.status === 'unavailable') console.error('setup: js_eval will be unavailable: ' + found.reason + '. To fix it, ' + found.fix + '.');
"
