// The contributor template must produce a package that passes the test command unchanged. In a copy of the
// repository (outside the workspace, with the working tree's files), run `pnpm new:tool sample`, then every check of
// the test command that what the template writes can fail, on what it changes:
//   - the frozen install (the lockfile `pnpm new:tool` updated is the one a contributor commits);
//   - the structure check (the package's files, the root tsconfig reference, the README table, the architecture
//     diagram, the docs-check dependency, the changeset) and the linter;
//   - the new package's own build, typecheck and tests, and those of every workspace package that depends on it
//     (turbo `--filter=...@dsh/tool-sample`: the docs check's package), with the outer run's turbo cache, so what the
//     template does not touch is restored and what it touches runs for real;
//   - the docs check (the new README and reference page type-check; their links resolve);
//   - the package checks on it (publint, attw, cordis ranges, class names, its tarball), its install alone from a
//     local registry (npm ls --all, import), and the release check (changesets version it on its own).
// The rest of the test command checks files the template does not write (the other packages' sources, the other
// docs, the consumer scenarios), and the outer run has just checked them; running the whole command again in the
// copy (as this check once did) doubled the test command's time for no verdict it could change.
// The conformance suite is handed on (DSH_CONFORMANCE_DIR) when the outer run has it, and the sandbox fingerprint
// and CI are inherited, so the copy's turbo hashes are the outer run's for every package the template leaves alone.
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join, resolve } from 'node:path'
import { root } from './workspace.mjs'

/** The cache folder turbo uses here: TURBO_CACHE_DIR, else .turbo/cache of the main worktree (turbo shares it). */
function turboCacheDir() {
  if (process.env.TURBO_CACHE_DIR) return resolve(root, process.env.TURBO_CACHE_DIR)
  const common = execFileSync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: root, encoding: 'utf8' }).trim()
  return join(dirname(common), '.turbo', 'cache')
}

function conformanceDir() {
  if (process.env.DSH_CONFORMANCE_DIR) return resolve(root, process.env.DSH_CONFORMANCE_DIR)
  const beside = resolve(root, '../shared/conformance')
  return existsSync(join(beside, 'json-schema-test-suite')) ? beside : undefined
}

const sample = '@dsh/tool-sample'
const copy = mkdtempSync(join(tmpdir(), 'dsh-template-'))
const conformance = conformanceDir()
// The copy's own binaries first (as test.sh puts them), then the outer run's pnpm for the first install.
const env = {
  ...process.env,
  PATH: [join(copy, 'node_modules/.bin'), join(root, 'node_modules/.bin'), process.env.PATH].join(delimiter),
  TURBO_TELEMETRY_DISABLED: '1',
  TURBO_NO_UPDATE_NOTIFIER: '1',
  TURBO_CACHE_DIR: turboCacheDir(),
  ...(conformance === undefined ? {} : { DSH_CONFORMANCE_DIR: conformance }),
}

const steps = []
/** Runs one step in the copy; throws with its output when it fails; records its time. */
function step(title, command, args, cwd = copy) {
  const started = Date.now()
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env, maxBuffer: 256 * 1024 * 1024 })
  const seconds = ((Date.now() - started) / 1000).toFixed(1)
  if (result.status !== 0) {
    throw new Error(`${title}: '${command} ${args.join(' ')}' exited with ${result.status ?? result.signal}\n${result.stdout}${result.stderr}`)
  }
  steps.push(`${title} (${seconds} s)`)
  return result.stdout
}

try {
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean)
  for (const file of files) {
    if (!existsSync(join(root, file))) continue // deleted in the working tree, not yet in the index
    mkdirSync(dirname(join(copy, file)), { recursive: true })
    cpSync(join(root, file), join(copy, file))
  }
  step('pnpm new:tool sample', 'node', ['tooling/new-tool.mjs', 'sample', 'A sample tool made by the template check.'])
  step('frozen install', 'pnpm', ['install', '--frozen-lockfile', '--prefer-offline'])
  step('structure', 'node', ['tooling/check-structure.mjs'])
  step('lint', 'oxlint', ['--deny-warnings', '.'])
  step(`build, typecheck, test of ${sample} and its dependents`, 'turbo', [
    'run', 'build', 'typecheck', 'test', `--filter=...${sample}`, '--output-logs=errors-only', '--concurrency=2',
  ])
  step('docs', 'node', ['tooling/docs-check/check-docs.mjs'])
  step('package checks', 'node', ['tooling/check-packages.mjs', sample])
  step('installed alone from a local registry', 'node', ['tooling/check-consumers.mjs', 'each-package', `--package=${sample}`])
  step('release check', join(copy, 'node_modules/.bin/vitest'), ['run', '--reporter=dot'], join(copy, 'tooling/release-check'))
  // The sample package's own tests must have run and passed (its report written or restored in the copy).
  const report = JSON.parse(readFileSync(join(copy, 'packages/tool-sample/.tmp/test-report.json'), 'utf8'))
  if (!(report.numPassedTests > 0) || report.numFailedTests !== 0) {
    throw new Error(`the sample package's tests did not all pass: ${report.numPassedTests} passed, ${report.numFailedTests} failed`)
  }
  for (const line of steps) console.log(`  ok: ${line}`)
  console.log(`template ok: after pnpm new:tool sample, ${sample} passes every check of the test command (${report.numPassedTests} tests)`)
} catch (error) {
  for (const line of steps) console.log(`  ok: ${line}`)
  console.error(`template check failed (copy in ${copy}, kept):\n${error.stdout ?? ''}${error.stderr ?? ''}${error.message}`)
  process.exitCode = 1
} finally {
  if (process.exitCode !== 1) rmSync(copy, { recursive: true, force: true })
}
