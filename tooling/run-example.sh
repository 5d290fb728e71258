#!/usr/bin/env bash
# `npm run demo` and `npm run example:<provider>`: runs one example from any state of the checkout. Installs with the
# pinned pnpm when the workspace is not installed, builds the packages the example imports (turbo, cached), then
# runs its entry with tsx. Everything but the example's own output goes to stderr (and install and build output
# only when they fail), so `npm run -s demo -- --json` is pure JSON lines.
#
# usage: run-example.sh <example folder under examples/> <entry under its src/, without .ts> [arguments…]
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1 TURBO_NO_UPDATE_NOTIFIER=1 DO_NOT_TRACK=1

folder="${1:-}"
entry="${2:-}"
if [ -z "$folder" ] || [ -z "$entry" ] || [ ! -f "examples/$folder/src/$entry.ts" ]; then
  echo "usage: run-example.sh <example folder> <entry> [arguments…] (no examples/$folder/src/$entry.ts)" >&2
  exit 2
fi
shift 2
name="$(node -p "require('./examples/$folder/package.json').name")"

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
quietly() {
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    echo "$folder: '$*' failed" >&2
    exit 1
  fi
}

if [ ! -x "examples/$folder/node_modules/.bin/tsx" ]; then
  echo "$folder: installing the workspace (pnpm 12.4.2, frozen lockfile)…" >&2
  if [ -x node_modules/.bin/pnpm ]; then pnpm_cmd=(node_modules/.bin/pnpm); else pnpm_cmd=(npx -y pnpm@12.4.2); fi
  quietly "${pnpm_cmd[@]}" install --frozen-lockfile
fi

export PATH="$PWD/node_modules/.bin:$PATH" # turbo looks for pnpm on PATH

# The packages the example depends on, built (or restored from turbo's cache) into their dist/ folders.
quietly turbo run build --filter="$name^..." --output-logs=errors-only

cd "examples/$folder"
exec node_modules/.bin/tsx "src/$entry.ts" "$@"
