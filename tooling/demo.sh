#!/usr/bin/env bash
# `npm run demo`: runs examples/echo-agent, the demo, from any state of the checkout. Installs with the pinned pnpm
# when the workspace is not installed, builds the packages the demo imports (turbo, cached), then runs the demo with
# tsx. Everything but the demo's own output goes to stderr, so `npm run -s demo -- --json` is pure JSON lines.
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1 TURBO_NO_UPDATE_NOTIFIER=1 DO_NOT_TRACK=1

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
quietly() {
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    echo "demo: '$*' failed" >&2
    exit 1
  fi
}

if [ ! -x examples/echo-agent/node_modules/.bin/tsx ]; then
  echo "demo: installing the workspace (pnpm 12.4.2, frozen lockfile)…" >&2
  if [ -x node_modules/.bin/pnpm ]; then pnpm_cmd=(node_modules/.bin/pnpm); else pnpm_cmd=(npx -y pnpm@12.4.2); fi
  quietly "${pnpm_cmd[@]}" install --frozen-lockfile
fi

export PATH="$PWD/node_modules/.bin:$PATH" # turbo looks for pnpm on PATH

# The packages the demo depends on, built (or restored from turbo's cache) into their dist/ folders.
quietly turbo run build --filter='@dsh/echo-agent^...' --output-logs=errors-only

cd examples/echo-agent
exec node_modules/.bin/tsx src/main.ts "$@"
