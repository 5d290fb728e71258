#!/usr/bin/env bash
# `npm run pack`: from a fresh clone to every published package's tarball in tarballs/, without running any test.
# Installs with the pinned pnpm when the workspace is not installed yet (frozen lockfile), builds the published
# packages (turbo, cached) and packs them (tooling/pack-all.mjs: checks each tarball, prints the install line).
# Install and build output is shown only when a step fails.
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1 TURBO_NO_UPDATE_NOTIFIER=1 DO_NOT_TRACK=1

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
quietly() {
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    echo "pack: '$*' failed" >&2
    exit 1
  fi
}

started=$SECONDS
if [ -x node_modules/.bin/pnpm ]; then pnpm_cmd=(node_modules/.bin/pnpm); else pnpm_cmd=(npx -y pnpm@12.4.2); fi
echo "== install (pnpm 12.4.2, frozen lockfile)"
quietly "${pnpm_cmd[@]}" install --frozen-lockfile --prefer-offline
export PATH="$PWD/node_modules/.bin:$PATH" # turbo looks for pnpm on PATH

echo "== build and pack every published package"
node tooling/pack-all.mjs
echo "done in $((SECONDS - started)) s (no tests ran: \`npm test\` runs them)"
