// The contributor template must produce a package that passes the test command unchanged: in a copy of the
// repository (outside the workspace, with the working tree's files), run `pnpm new:tool sample`, then the whole
// test command (tooling/test.sh: install, structure, lint, build, typecheck, tests, tsc --build, the docs check,
// publint and attw, the consumer checks and the summary), exactly as a contributor would after generating a tool.
//
// The copy's run differs from the outer one in two ways only, both to keep it fast without making it lie:
//   - DSH_TEMPLATE_CHECK=nested: the copy does not start a copy of its own (that would never end);
//   - it shares the outer run's turbo cache (TURBO_CACHE_DIR). Turbo's hashes cover every input, so a package
//     the template does not touch has the same hash in the copy and its results are reused, while the new package
//     and everything whose inputs changed (the docs check's manifest, the lockfile entries) run for real.
// The conformance suite is handed on (DSH_CONFORMANCE_DIR) when the outer run has it, so the copy reaches the same
// verdict: the copy lives in a temporary folder, with no ../shared beside it.
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
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

const copy = mkdtempSync(join(tmpdir(), 'dsh-template-'))
const conformance = conformanceDir()
const env = {
  ...process.env,
  TURBO_TELEMETRY_DISABLED: '1',
  TURBO_CACHE_DIR: turboCacheDir(),
  DSH_TEMPLATE_CHECK: 'nested',
  ...(conformance === undefined ? {} : { DSH_CONFORMANCE_DIR: conformance }),
}
// The outer run's PATH starts with its own node_modules/.bin; the copy's test.sh puts the copy's first.
const run = (command, args, cwd = copy) => execFileSync(command, args, { cwd, encoding: 'utf8', stdio: 'pipe', env })
try {
  const files = run('git', ['ls-files', '-co', '--exclude-standard', '-z'], root).split('\0').filter(Boolean)
  for (const file of files) {
    if (!existsSync(join(root, file))) continue // deleted in the working tree, not yet in the index
    mkdirSync(dirname(join(copy, file)), { recursive: true })
    cpSync(join(root, file), join(copy, file))
  }
  run(join(root, 'node_modules/.bin/pnpm'), ['install', '--frozen-lockfile', '--prefer-offline'])
  run('node', ['tooling/new-tool.mjs', 'sample', 'A sample tool made by the template check.'])

  const started = Date.now()
  const result = spawnSync('bash', ['tooling/test.sh'], { cwd: copy, encoding: 'utf8', env, maxBuffer: 256 * 1024 * 1024 })
  const output = `${result.stdout}${result.stderr}`
  if (result.status !== 0) throw new Error(`tooling/test.sh in the copy exited with ${result.status ?? result.signal}:\n${output}`)
  // The sample package's own tests must be among the counted ones (its report restored or written in the copy).
  const report = JSON.parse(readFileSync(join(copy, 'packages/tool-sample/.tmp/test-report.json'), 'utf8'))
  if (!(report.numPassedTests > 0)) throw new Error(`the sample package's tests did not run in the copy:\n${output}`)
  const summary = result.stdout.slice(result.stdout.lastIndexOf('== summary'))
  console.log(`  the copy's summary (${Math.round((Date.now() - started) / 1000)} s):`)
  for (const line of summary.trim().split('\n').slice(1)) console.log(`  | ${line}`)
  console.log('template ok: after pnpm new:tool sample, the whole test command passes in a copy of the repository')
} catch (error) {
  console.error(`template check failed (copy in ${copy}, kept):\n${error.stdout ?? ''}${error.stderr ?? ''}${error.message}`)
  process.exitCode = 1
} finally {
  if (process.exitCode !== 1) rmSync(copy, { recursive: true, force: true })
}
