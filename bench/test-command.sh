#!/usr/bin/env bash
# Times the test command from a fresh clone of HEAD, twice: cold (no node_modules, no turbo cache; npm's and pnpm's
# download caches as they are on the machine) and warm (the same clone again: turbo restores every task). Prints
# both wall times and the summary line of each run; the figures go into bench/results.md ("The test command").
#
# usage: bash bench/test-command.sh   (takes as long as two test runs; uses a temporary folder, removed at the end)
set -euo pipefail
cd "$(dirname "$0")/.."
clone="$(mktemp -d)"
trap 'rm -rf "$clone"' EXIT
git clone -q . "$clone"
# The conformance suite beside this checkout, handed on (the clone has no ../shared beside it).
if [ -z "${DSH_CONFORMANCE_DIR:-}" ] && [ -d ../shared/conformance ]; then export DSH_CONFORMANCE_DIR="$(realpath ../shared/conformance)"; fi
export TURBO_CACHE_DIR="$clone/.turbo/cache" # the clone's own cache: cold means cold
for run in cold warm; do
  started=$SECONDS
  if ! (cd "$clone" && npm test) >"$clone.$run.log" 2>&1; then
    tail -n 40 "$clone.$run.log" >&2
    echo "$run run failed (log: $clone.$run.log)" >&2
    exit 1
  fi
  seconds=$((SECONDS - started))
  summary="$(grep -E '^[0-9]+ passed' "$clone.$run.log" | tail -n 1 || true)"
  echo "$run: ${seconds} s ($((seconds / 60)) min $((seconds % 60)) s)  ${summary}"
  sed -n '/^== wall time by step/,$p' "$clone.$run.log" | tail -n +2 | sed 's/^/  /'
  rm -f "$clone.$run.log"
done
echo "machine: $(nproc) cores, $(node -v), $(date -u +%Y-%m-%d)"
