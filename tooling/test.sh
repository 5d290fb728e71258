#!/usr/bin/env bash
# The one command: installs with the pinned pnpm, checks structure, lints, builds, type-checks, tests every
# package (unit + type tests), checks every published package with publint and attw, checks what `pnpm new:tool`
# generates, and prints the counts and the wall time of each step.
#
# Environment:
#   DSH_CONFORMANCE_DIR  the folder that holds json-schema-test-suite/ (the JSON Schema Test Suite that
#                        packages/tools-schema checks its validators against). Unset: ../shared/conformance beside
#                        the repository, where CI has it. When the suite is in neither place the conformance groups
#                        do not run and the summary says so; with CI=true that fails the run.
#   CI                   "true" in CI: a missing conformance suite is a failure, and so is a missing bubblewrap
#                        (the @dsh/tool-bash-sandbox tests then fail naming the fix; elsewhere they do not run and
#                        the summary says so).
#   TURBO_CACHE_DIR      turbo's cache folder (turbo's own variable); check-template shares it with its copy.
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1 TURBO_NO_UPDATE_NOTIFIER=1 DO_NOT_TRACK=1

# Each step's header; the wall time of every step is printed at the end (bench/results.md keeps the figures).
timings=()
phase() {
  if [ -n "${phase_name:-}" ]; then timings+=("$(printf '%5d s  %s' $((SECONDS - phase_started)) "$phase_name")"); fi
  phase_name="${1:-}"
  phase_started=$SECONDS
  if [ -n "$phase_name" ]; then echo "== $phase_name"; fi
}

if [ -x node_modules/.bin/pnpm ]; then pnpm_cmd=(node_modules/.bin/pnpm); else pnpm_cmd=(npx -y pnpm@12.4.2); fi
phase "install (pnpm 12.4.2, frozen lockfile)"
"${pnpm_cmd[@]}" install --frozen-lockfile
export PATH="$PWD/node_modules/.bin:$PATH"

# The conformance suite lives outside the repository, so turbo cannot hash it as an input. Its fingerprint (the
# names and contents of the files the tests read, or "absent") goes into every test task's hash (tools-schema's and
# tools-mcp's conformance tests read it) through
# turbo.json's `env`, with DSH_CONFORMANCE_DIR and CI: a cached result is always one of the same suite, and a
# cached "did not run" never stands in for a run that would find the suite.
# When the suite is found beside the repository, DSH_CONFORMANCE_DIR is set to it (absolute), so the test reads
# exactly the folder the fingerprint covers, and check-template's copy (in a temporary folder) shares the hash.
if [ -n "${DSH_CONFORMANCE_DIR:-}" ]; then
  DSH_CONFORMANCE_DIR="$(realpath -m "$DSH_CONFORMANCE_DIR")" # relative paths are taken from the repository root
  export DSH_CONFORMANCE_DIR
elif [ -d ../shared/conformance/json-schema-test-suite/draft2020-12 ]; then
  DSH_CONFORMANCE_DIR="$(realpath ../shared/conformance)"
  export DSH_CONFORMANCE_DIR
fi
conformance_suite="${DSH_CONFORMANCE_DIR:-}/json-schema-test-suite/draft2020-12"
if [ -n "${DSH_CONFORMANCE_DIR:-}" ] && [ -d "$conformance_suite" ]; then
  DSH_CONFORMANCE_FINGERPRINT="$(cd "$conformance_suite" && find . -maxdepth 1 -type f -name '*.json' -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)"
else
  DSH_CONFORMANCE_FINGERPRINT=absent # not found (the test says where it looked), or DSH_CONFORMANCE_DIR without it (fails)
fi
export DSH_CONFORMANCE_FINGERPRINT

# Whether the tests that need bubblewrap can run (@dsh/tool-bash-sandbox's and the sandboxed demo's: bubblewrap, and
# who runs them) is a fact of the machine, not of the repository: it goes into every test task's hash (turbo.json
# `env`), so a cached "did not run" never stands in for a run on a machine that has bubblewrap, and the other way round.
if command -v bwrap >/dev/null 2>&1; then
  DSH_SANDBOX_FINGERPRINT="$(bwrap --version 2>&1 | head -n 1); uid $(id -u)"
else
  DSH_SANDBOX_FINGERPRINT=absent # the sandbox tests are not declared (the summary says so); with CI=true they fail
fi
export DSH_SANDBOX_FINGERPRINT

# The same for the container engines of @dsh/tool-bash-container's tests (.ci/run starts podman and Docker and
# exports their socket or URL, TLS directory and image; turbo passes them through to the tests, and hashes this
# fingerprint instead of their temporary paths and ports). Either engine alone runs its share of the tests.
if [ -n "${DSH_CONTAINER_SOCKET:-}" ] && [ -S "$DSH_CONTAINER_SOCKET" ]; then
  container_podman="engine ${DSH_CONTAINER_IMAGE:-no image}"
else
  container_podman=absent # its tests are left out (the summary says so); with CI=true they fail
fi
if [ -n "${DSH_CONTAINER_DOCKER_URL:-}" ] && [ -s "${DSH_CONTAINER_DOCKER_TLS_DIR:-}/cert.pem" ]; then
  container_docker="docker ${DSH_CONTAINER_DOCKER_IMAGE:-no image}"
else
  container_docker=absent # its tests are not declared; with CI=true they fail
fi
if [ "$container_podman" = absent ] && [ "$container_docker" = absent ]; then
  DSH_CONTAINER_FINGERPRINT=absent
else
  DSH_CONTAINER_FINGERPRINT="$container_podman; $container_docker; uid $(id -u)"
fi
export DSH_CONTAINER_FINGERPRINT

phase "structure"
node tooling/check-structure.mjs

phase "lint (oxlint)"
oxlint --deny-warnings .

phase "build, typecheck, test (turbo)"
# Each package's report (<package>/.tmp/test-report.json) is an output of its test task: turbo writes it back on
# a cache hit. Clearing them first means the summary only ever counts reports of this run.
node tooling/summarize-tests.mjs --clear
# Run every task whose dependencies built, so a failing run still counts every package; then stop with the
# summary, which names the failed tests and files (turbo never caches a failed task).
# Two tasks at a time on 2 cores: four were tried and were no faster from a fresh clone (332 s against 314 s for this
# step; bench/results.md, "The test command"), with more load on the tests' timers.
if ! turbo run build typecheck test --output-logs=new-only --concurrency=2 --continue=dependencies-successful; then
  phase "summary"
  node tooling/summarize-tests.mjs || true
  echo "turbo run build typecheck test failed (see above)" >&2
  exit 1
fi

phase "type-check everything (tsc --build)"
tsc --build

phase "docs (every TypeScript block type-checks against the built packages)"
node tooling/docs-check/check-docs.mjs

phase "package checks (publint, attw)"
node tooling/check-packages.mjs

phase "consumer checks (tarballs; README and guide run literally; publish to a local verdaccio and npm install)"
node tooling/check-consumers.mjs

phase "contributor template (pnpm new:tool sample in a copy of the repository, then every check on what it changed)"
node tooling/check-template.mjs

phase "summary"
node tooling/summarize-tests.mjs
phase
echo "== wall time by step (total $SECONDS s)"
printf '%s\n' "${timings[@]}"
