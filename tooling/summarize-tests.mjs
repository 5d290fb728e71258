// Adds up the vitest JSON reports and prints the closing lines of the test command: the conformance note and
// `N passed, N failed`.
//
// Every workspace package with a `test` script writes its report to <package>/.tmp/test-report.json
// (vitest.shared.ts); the file is a declared output of the package's turbo `test` task, so a cached task restores
// it and a cold, warm or half-warm run adds up the same reports. The summary fails when
//   - a package's report is missing (its test task did not run or turbo did not restore the report): named;
//   - a test failed, or a test file failed outside its tests (a syntax error, an import that throws at module
//     level, a failing hook): the file and vitest's message are printed;
//   - a test was skipped or left as todo (skipped tests are defects);
//   - no test ran at all;
//   - CI is "true" and the JSON Schema Test Suite conformance groups did not run;
//   - CI is "true" and the tests of @dsh/tool-bash-sandbox that need a real bubblewrap did not run (elsewhere the
//     summary says that they did not run, and why);
//   - CI is "true" and the tests of @dsh/tool-bash-container did not run on both container engines (podman and
//     Docker; elsewhere the summary names the engine whose tests did not run, and the fix).
//
// `node tooling/summarize-tests.mjs --clear` deletes the reports; the test command runs it before turbo, so a
// report left over from an earlier run can never be counted.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join, relative } from 'node:path'
import { pathToFileURL } from 'node:url'

export const reportPath = join('.tmp', 'test-report.json')

/** The describe block of packages/tools-schema/src/json-schema-test-suite.test.ts that holds one block per group. */
export const conformanceSuiteTitle = 'JSON Schema Test Suite (draft 2020-12)'

export const conformanceMissingNote =
  'conformance: JSON Schema Test Suite not found, its groups did not run (over 300 groups of draft 2020-12); ' +
  'set DSH_CONFORMANCE_DIR=<folder that holds json-schema-test-suite/> or put ../shared/conformance beside the repository'

/** The package whose tests need bubblewrap, and the describe block those tests sit under (its test-support.ts). */
export const sandboxPackage = '@dsh/tool-bash-sandbox'
export const sandboxSuiteTitle = 'in a bubblewrap sandbox'

export const sandboxMissingNote =
  'sandbox: bubblewrap (bwrap) not found, so the tests that run commands in it (every suite titled "in a bubblewrap sandbox") did not run; ' +
  'install it (apt-get install -y bubblewrap, as root; .ci/run does) and run the tests again'

/** The package whose tests need container engines, its suite title, and the engines' suites under it (test-support.ts). */
export const containerPackage = '@dsh/tool-bash-container'
export const containerSuiteTitle = 'in a session container'
export const containerEngines = [
  { name: 'podman', suite: 'on podman (unix socket)', fix: 'source .ci/container-engine.sh' },
  { name: 'Docker', suite: 'on Docker (TCP+TLS)', fix: 'source .ci/docker-engine.sh' },
]

/** The line saying that `engine`'s container tests did not run, with the fix. */
export const containerMissingNote = (engine) =>
  `containers: no ${engine.name} engine, so the tests that run commands in session containers on it did not run; ` +
  `${engine.fix} (as root; .ci/run does) and run the tests again`

/** The workspace folders pnpm-workspace.yaml names (`dir/*` or `dir`), relative to the root. */
export function workspaceFolders(root) {
  const lines = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8').split('\n')
  const start = lines.findIndex((line) => /^packages:\s*$/.test(line))
  const patterns = []
  for (const line of lines.slice(start + 1)) {
    const item = /^\s+-\s+['"]?([^'"#\s]+)['"]?/.exec(line)
    if (item) patterns.push(item[1])
    else if (/^\S/.test(line)) break
  }
  return patterns.flatMap((pattern) => {
    if (!pattern.endsWith('/*')) return [pattern]
    const base = pattern.slice(0, -2)
    if (!existsSync(join(root, base))) return []
    return readdirSync(join(root, base), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${base}/${entry.name}`)
  })
}

/** Every workspace package with a `test` script: { folder (relative to the root), name }, sorted by folder. */
export function testedPackages(root) {
  return workspaceFolders(root)
    .filter((folder) => existsSync(join(root, folder, 'package.json')))
    .map((folder) => ({ folder, json: JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8')) }))
    .filter(({ json }) => typeof json.scripts?.test === 'string')
    .map(({ folder, json }) => ({ folder, name: json.name }))
    .sort((a, b) => a.folder.localeCompare(b.folder))
}

function fileName(file, packageDir) {
  const inside = relative(packageDir, file)
  return inside.startsWith('..') ? file : inside
}

/**
 * The verdict over one report per tested package (`report` undefined when the file is missing).
 * Pure: returns the lines to print and whether the run passed.
 * @param {{ packages: { folder: string, name: string, dir: string, report: any }[], ci: boolean }} input
 */
export function summarize({ packages, ci }) {
  const lines = []
  const problems = []
  let passed = 0
  let failed = 0
  let skipped = 0
  let conformanceGroups = 0
  let sandboxTests = 0
  const containerTests = new Map(containerEngines.map((engine) => [engine.name, 0]))
  const containerListed = packages.some((entry) => entry.name === containerPackage && entry.report !== undefined)
  const sandboxListed = packages.some((entry) => entry.name === sandboxPackage && entry.report !== undefined)
  for (const { folder, name, dir, report } of packages) {
    if (report === undefined) {
      lines.push(`  ${folder.padEnd(28)} no report`)
      problems.push(`${name} (${folder}) has no test report at ${join(folder, reportPath)}: its test task did not write it, or turbo did not restore it`)
      continue
    }
    const files = report.testResults ?? []
    // A file that failed with no failed test in it failed outside its tests: it did not load, or a hook threw.
    const brokenFiles = files.filter(
      (file) => file.status === 'failed' && !(file.assertionResults ?? []).some((test) => test.status === 'failed'),
    )
    const pending = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0)
    const packageFailed = (report.numFailedTests ?? 0) + brokenFiles.length
    lines.push(
      `  ${folder.padEnd(28)} ${String(report.numPassedTests ?? 0).padStart(5)} passed` +
        `${packageFailed ? `, ${packageFailed} failed` : ''}${pending ? `, ${pending} skipped` : ''}`,
    )
    for (const file of brokenFiles) {
      lines.push(`    ${fileName(file.name, dir)} failed outside its tests (did not load, or a hook threw): ${file.message || 'no message'}`)
    }
    for (const file of files) {
      for (const test of file.assertionResults ?? []) {
        if (test.status === 'failed') lines.push(`    ${fileName(file.name, dir)} failed: ${test.fullName}`)
      }
    }
    const groups = new Set(
      files.flatMap((file) =>
        (file.assertionResults ?? [])
          .filter((test) => test.ancestorTitles?.[0] === conformanceSuiteTitle && test.ancestorTitles.length > 1)
          .map((test) => `${file.name}\0${test.ancestorTitles[1]}`),
      ),
    )
    conformanceGroups += groups.size
    if (name === containerPackage) {
      // A test directly under the suite (no engine suite) runs on podman (test-support.ts: describeInContainer).
      for (const test of files.flatMap((file) => file.assertionResults ?? []).filter((entry) => entry.ancestorTitles?.[0] === containerSuiteTitle)) {
        const engine = containerEngines.find((candidate) => test.ancestorTitles[1] === candidate.suite) ?? containerEngines[0]
        containerTests.set(engine.name, (containerTests.get(engine.name) ?? 0) + 1)
      }
    }
    if (name === sandboxPackage) {
      sandboxTests += files.flatMap((file) => file.assertionResults ?? []).filter((test) => test.ancestorTitles?.[0] === sandboxSuiteTitle).length
    }
    passed += report.numPassedTests ?? 0
    failed += packageFailed
    skipped += pending
  }
  if (conformanceGroups > 0) lines.push(`conformance: JSON Schema Test Suite, ${conformanceGroups} groups ran`)
  else {
    lines.push(conformanceMissingNote)
    if (ci) problems.push('CI is "true" and the JSON Schema Test Suite conformance groups did not run')
  }
  if (sandboxListed && sandboxTests > 0) lines.push(`sandbox: ${sandboxTests} tests ran in a bubblewrap sandbox`)
  else if (sandboxListed) {
    lines.push(sandboxMissingNote)
    if (ci) problems.push('CI is "true" and the bubblewrap sandbox tests did not run')
  }
  if (containerListed) {
    const ran = containerEngines.filter((engine) => (containerTests.get(engine.name) ?? 0) > 0)
    if (ran.length > 0) lines.push(`containers: ${ran.map((engine) => `${containerTests.get(engine.name)} tests ran on ${engine.name}`).join(', ')}`)
    for (const engine of containerEngines.filter((candidate) => !ran.includes(candidate))) {
      lines.push(containerMissingNote(engine))
      if (ci) problems.push(`CI is "true" and the container tests did not run on ${engine.name}`)
    }
  }
  lines.push(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`)
  if (failed > 0) problems.push('tests failed')
  if (skipped > 0) problems.push('skipped tests are defects: fix or delete them')
  if (passed === 0) problems.push('no test ran')
  return { lines, problems, ok: problems.length === 0 }
}

function readReports(root) {
  return testedPackages(root).map(({ folder, name }) => {
    const dir = join(root, folder)
    const file = join(dir, reportPath)
    return { folder, name, dir, report: existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined }
  })
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = join(import.meta.dirname, '..')
  if (process.argv.includes('--clear')) {
    for (const { folder } of testedPackages(root)) rmSync(join(root, folder, reportPath), { force: true })
  } else {
    const { lines, problems, ok } = summarize({ packages: readReports(root), ci: process.env.CI === 'true' })
    for (const line of lines) console.log(line)
    if (!ok) {
      for (const problem of problems) console.error(problem)
      process.exit(1)
    }
  }
}
