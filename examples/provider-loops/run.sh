#!/usr/bin/env bash
# `npm run example:<openai|anthropic|gemini>`: runs one provider loop from any state of the checkout. Installs with
# the pinned pnpm when the workspace is not installed, builds the packages the examples import (turbo, cached),
# then runs the example with tsx. Build and install output goes to stderr only when they fail.
set -euo pipefail
cd "$(dirname "$0")/../.."
export TURBO_TELEMETRY_DISABLED=1 TURBO_NO_UPDATE_NOTIFIER=1 DO_NOT_TRACK=1

example="${1:-}"
case "$example" in
  openai | anthropic | gemini) ;;
  *) echo "usage: run.sh openai|anthropic|gemini" >&2; exit 2 ;;
esac

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
quietly() {
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    echo "example: '$*' failed" >&2
    exit 1
  fi
}

if [ ! -x examples/provider-loops/node_modules/.bin/tsx ]; then
  echo "example: installing the workspace (pnpm 12.4.2, frozen lockfile)…" >&2
  if [ -x node_modules/.bin/pnpm ]; then pnpm_cmd=(node_modules/.bin/pnpm); else pnpm_cmd=(npx -y pnpm@12.4.2); fi
  quietly "${pnpm_cmd[@]}" install --frozen-lockfile
fi

export PATH="$PWD/node_modules/.bin:$PATH" # turbo looks for pnpm on PATH
quietly turbo run build --filter='@dsh/provider-loops^...' --output-logs=errors-only

cd examples/provider-loops
exec node_modules/.bin/tsx "src/$example.ts"
