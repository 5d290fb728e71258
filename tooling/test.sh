#!/usr/bin/env bash
# The one command: installs with the pinned pnpm, checks structure, lints, builds, type-checks, tests every
# package (unit + type tests), checks every published package with publint and attw, and prints the counts.
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1 TURBO_NO_UPDATE_NOTIFIER=1 DO_NOT_TRACK=1

if [ -x node_modules/.bin/pnpm ]; then pnpm_cmd=(node_modules/.bin/pnpm); else pnpm_cmd=(npx -y pnpm@12.4.2); fi
echo "== install (pnpm 12.4.2, frozen lockfile)"
"${pnpm_cmd[@]}" install --frozen-lockfile
export PATH="$PWD/node_modules/.bin:$PATH"

echo "== structure"
node tooling/check-structure.mjs

echo "== lint (oxlint)"
oxlint --deny-warnings .

echo "== build, typecheck, test (turbo)"
rm -rf .tmp/test-reports
turbo run build typecheck test --output-logs=new-only --concurrency=2

echo "== type-check everything (tsc --build)"
tsc --build

echo "== docs (every TypeScript block type-checks against the built packages)"
node tooling/docs-check/check-docs.mjs

echo "== package checks (publint, attw)"
node tooling/check-packages.mjs

echo "== consumer checks (packed tarballs installed with npm outside the workspace)"
node tooling/check-consumers.mjs

echo "== contributor template (pnpm new:tool in a copy of the repository)"
node tooling/check-template.mjs

echo "== summary"
node tooling/summarize-tests.mjs
