// The closing lines of the test command (tooling/summarize-tests.mjs): one report per tested package, failures
// outside tests counted, missing reports and skipped tests fatal, and the conformance note.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  conformanceMissingNote,
  conformanceSuiteTitle,
  containerEngines,
  containerMissingNote,
  containerSuiteTitle,
  sandboxMissingNote,
  sandboxSuiteTitle,
  summarize,
  testedPackages,
} from '../../summarize-tests.mjs'

const root = join(import.meta.dirname, '..', '..', '..')

interface Assertion {
  ancestorTitles: string[]
  fullName: string
  status: 'passed' | 'failed' | 'skipped' | 'todo'
}
interface FileResult {
  name: string
  status: 'passed' | 'failed'
  message: string
  assertionResults: Assertion[]
}

const passing = (title: string, ancestors: string[] = ['suite']): Assertion => ({
  ancestorTitles: ancestors,
  fullName: [...ancestors, title].join(' '),
  status: 'passed',
})

/** A vitest JSON report with the counters vitest derives from the file results. */
function report(files: FileResult[]) {
  const tests = files.flatMap((file) => file.assertionResults)
  return {
    numPassedTests: tests.filter((test) => test.status === 'passed').length,
    numFailedTests: tests.filter((test) => test.status === 'failed').length,
    numPendingTests: tests.filter((test) => test.status === 'skipped').length,
    numTodoTests: tests.filter((test) => test.status === 'todo').length,
    numFailedTestSuites: files.filter((file) => file.status === 'failed').length,
    testResults: files,
  }
}

const pkg = (folder: string, value: unknown) => ({ folder, name: `@dsh/${folder.split('/').pop()}`, dir: join('/repo', folder), report: value })
const file = (name: string, assertionResults: Assertion[], status: 'passed' | 'failed' = 'passed', message = '') => ({
  name: join('/repo', name),
  status,
  message,
  assertionResults,
})
const conformanceRun = (groups: number) =>
  pkg(
    'packages/tools-schema',
    report([
      file(
        'packages/tools-schema/src/json-schema-test-suite.test.ts',
        Array.from({ length: groups }, (_, index) => [
          passing('structured-output subset', [conformanceSuiteTitle, `group-${index}.json: a group`]),
          passing('DSL', [conformanceSuiteTitle, `group-${index}.json: a group`]),
        ]).flat(),
      ),
    ]),
  )

describe('summarize', () => {
  it('adds up every package and closes with the counts', () => {
    const result = summarize({
      packages: [
        pkg('packages/a', report([file('packages/a/src/a.test.ts', [passing('one'), passing('two')])])),
        conformanceRun(3),
      ],
      ci: true,
    })
    expect(result.ok).toBe(true)
    expect(result.lines.slice(-2)).toEqual(['conformance: JSON Schema Test Suite, 3 groups ran', '8 passed, 0 failed'])
    expect(result.lines[0]).toMatch(/^ {2}packages\/a +2 passed$/)
  })

  it('fails, naming the package, when a report is missing', () => {
    const result = summarize({ packages: [pkg('packages/a', undefined), conformanceRun(1)], ci: false })
    expect(result.ok).toBe(false)
    expect(result.problems).toEqual([expect.stringContaining('@dsh/a (packages/a) has no test report at packages/a/.tmp/test-report.json')])
    expect(result.lines).toContain(`  ${'packages/a'.padEnd(28)} no report`)
  })

  it('counts a file that failed outside its tests (did not load) as a failure and prints it', () => {
    const result = summarize({
      packages: [
        pkg(
          'packages/a',
          report([
            file('packages/a/src/ok.test.ts', [passing('fine')]),
            file('packages/a/src/broken.test.ts', [], 'failed', "Cannot find module './gone.js'"),
          ]),
        ),
        conformanceRun(1),
      ],
      ci: false,
    })
    expect(result.ok).toBe(false)
    expect(result.lines.at(-1)).toBe('3 passed, 1 failed')
    expect(result.lines).toContain(
      "    src/broken.test.ts failed outside its tests (did not load, or a hook threw): Cannot find module './gone.js'",
    )
    expect(result.problems).toContain('tests failed')
  })

  it('counts a failed test once, not again as a failed file', () => {
    const failing: Assertion = { ancestorTitles: ['suite'], fullName: 'suite breaks', status: 'failed' }
    const result = summarize({
      packages: [pkg('packages/a', report([file('packages/a/src/a.test.ts', [passing('fine'), failing], 'failed')])), conformanceRun(1)],
      ci: false,
    })
    expect(result.lines.at(-1)).toBe('3 passed, 1 failed')
    expect(result.lines).toContain('    src/a.test.ts failed: suite breaks')
    expect(result.ok).toBe(false)
  })

  it('treats skipped and todo tests as defects', () => {
    const skipped: Assertion = { ancestorTitles: ['suite'], fullName: 'suite later', status: 'skipped' }
    const todo: Assertion = { ancestorTitles: ['suite'], fullName: 'suite some day', status: 'todo' }
    const result = summarize({
      packages: [pkg('packages/a', report([file('packages/a/src/a.test.ts', [passing('fine'), skipped, todo])])), conformanceRun(1)],
      ci: false,
    })
    expect(result.lines.at(-1)).toBe('3 passed, 0 failed, 2 skipped')
    expect(result.problems).toEqual(['skipped tests are defects: fix or delete them'])
  })

  it('fails when no test ran', () => {
    expect(summarize({ packages: [], ci: false }).problems).toContain('no test ran')
  })

  it('says when the conformance groups did not run, and fails for it only in CI', () => {
    const packages = [pkg('packages/a', report([file('packages/a/src/a.test.ts', [passing('fine')])]))]
    const local = summarize({ packages, ci: false })
    expect(local.ok).toBe(true)
    expect(local.lines.slice(-2)).toEqual([conformanceMissingNote, '1 passed, 0 failed'])
    expect(conformanceMissingNote).toContain('DSH_CONFORMANCE_DIR')
    const ci = summarize({ packages, ci: true })
    expect(ci.ok).toBe(false)
    expect(ci.problems).toEqual(['CI is "true" and the JSON Schema Test Suite conformance groups did not run'])
  })

  it('counts the sandbox tests, and when none ran says so with the fix, failing for it only in CI', () => {
    const inSandbox: Assertion = { ancestorTitles: [sandboxSuiteTitle, 'the escape matrix'], fullName: 'blocks a remount', status: 'passed' }
    const pure = passing('profile argv')
    const sandbox = (tests: Assertion[]) => pkg('packages/tool-bash-sandbox', report([file('packages/tool-bash-sandbox/src/x.test.ts', tests)]))
    const ran = summarize({ packages: [sandbox([pure, inSandbox, inSandbox]), conformanceRun(1)], ci: true })
    expect(ran.ok).toBe(true)
    expect(ran.lines.slice(-2)).toEqual(['sandbox: 2 tests ran in a bubblewrap sandbox', '5 passed, 0 failed'])
    const local = summarize({ packages: [sandbox([pure]), conformanceRun(1)], ci: false })
    expect(local.ok).toBe(true)
    expect(local.lines.slice(-2)).toEqual([sandboxMissingNote, '3 passed, 0 failed'])
    expect(sandboxMissingNote).toContain('apt-get install -y bubblewrap')
    const ci = summarize({ packages: [sandbox([pure]), conformanceRun(1)], ci: true })
    expect(ci.problems).toEqual(['CI is "true" and the bubblewrap sandbox tests did not run'])
    // A sandbox-titled test in another package does not count for the sandbox package.
    const elsewhere = summarize({ packages: [sandbox([pure]), pkg('packages/a', report([file('packages/a/src/a.test.ts', [inSandbox])])), conformanceRun(1)], ci: true })
    expect(elsewhere.ok).toBe(false)
  })

  it('counts the container tests per engine, and names an engine whose tests did not run with its fix, failing for it only in CI', () => {
    const [podman, docker] = containerEngines as [{ name: string; suite: string }, { name: string; suite: string }]
    const onPodman: Assertion = { ancestorTitles: [containerSuiteTitle, podman.suite, 'leaks'], fullName: 'after a timeout', status: 'passed' }
    const onDocker: Assertion = { ancestorTitles: [containerSuiteTitle, docker.suite, 'leaks'], fullName: 'after a timeout', status: 'passed' }
    // describeInContainer's tests sit directly under the suite and run on podman.
    const podmanOnly: Assertion = { ancestorTitles: [containerSuiteTitle, 'the preflight'], fullName: 'refuses', status: 'passed' }
    const pure = passing('config')
    const container = (tests: Assertion[]) => pkg('packages/tool-bash-container', report([file('packages/tool-bash-container/src/x.test.ts', tests)]))
    const both = summarize({ packages: [container([pure, onPodman, podmanOnly, onDocker]), conformanceRun(1)], ci: true })
    expect(both.ok).toBe(true)
    expect(both.lines.slice(-2)).toEqual(['containers: 2 tests ran on podman, 1 tests ran on Docker', '6 passed, 0 failed'])
    const noDocker = summarize({ packages: [container([pure, onPodman]), conformanceRun(1)], ci: false })
    expect(noDocker.ok).toBe(true)
    expect(noDocker.lines.slice(-3)).toEqual(['containers: 1 tests ran on podman', containerMissingNote(docker), '4 passed, 0 failed'])
    expect(containerMissingNote(docker)).toContain('source .ci/docker-engine.sh')
    const none = summarize({ packages: [container([pure]), conformanceRun(1)], ci: true })
    expect(none.problems).toEqual(['CI is "true" and the container tests did not run on podman', 'CI is "true" and the container tests did not run on Docker'])
  })
})

let scratches: string[] = []
afterEach(() => {
  for (const scratch of scratches) rmSync(scratch, { recursive: true, force: true })
  scratches = []
})
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-summary-'))
  scratches.push(dir)
  return dir
}

describe('testedPackages', () => {
  it('lists the workspace packages that have a test script, from pnpm-workspace.yaml', () => {
    const dir = scratch()
    writeFileSync(join(dir, 'pnpm-workspace.yaml'), 'packages:\n  - packages/*\n  - "bench"\n\nallowBuilds:\n  esbuild: true\n')
    const manifest = (folder: string, json: object) => {
      mkdirSync(join(dir, folder), { recursive: true })
      writeFileSync(join(dir, folder, 'package.json'), JSON.stringify(json))
    }
    manifest('packages/b', { name: '@dsh/b', scripts: { test: 'vitest run' } })
    manifest('packages/a', { name: '@dsh/a', scripts: { test: 'vitest run' } })
    manifest('packages/untested', { name: '@dsh/untested', scripts: { build: 'tsup' } })
    manifest('bench', { name: '@dsh/bench', scripts: { test: 'vitest run' } })
    manifest('esbuild', { name: 'not-in-the-workspace', scripts: { test: 'x' } })
    mkdirSync(join(dir, 'packages/no-manifest'))
    expect(testedPackages(dir)).toEqual([
      { folder: 'bench', name: '@dsh/bench' },
      { folder: 'packages/a', name: '@dsh/a' },
      { folder: 'packages/b', name: '@dsh/b' },
    ])
  })

  it('finds this repository\'s tested packages, this one among them', () => {
    const folders = testedPackages(root).map((entry: { folder: string }) => entry.folder)
    expect(folders).toContain('tooling/release-check')
    expect(folders).toContain('packages/tools-schema')
  })
})

describe('a real vitest report', () => {
  it('counts files that fail to load (a syntax error, a module-level throw) as failures', () => {
    const dir = scratch()
    writeFileSync(join(dir, 'ok.test.js'), "test('passes', () => { expect(1 + 1).toBe(2) })\n")
    writeFileSync(join(dir, 'throws.test.js'), "throw new Error('broken at load')\ntest('never', () => {})\n")
    writeFileSync(join(dir, 'syntax.test.js'), "test('never', () => { expect(1).toBe(1) \n")
    const vitest = join(root, 'node_modules/.bin/vitest')
    let status = 0
    try {
      execFileSync(vitest, ['run', '--root', dir, '--globals', '--reporter=json', '--outputFile', join(dir, 'report.json')], {
        cwd: dir,
        stdio: 'pipe',
      })
    } catch (error) {
      status = (error as { status: number }).status
    }
    expect(status).toBe(1)
    const vitestReport = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'))
    const result = summarize({ packages: [{ folder: 'scratch', name: 'scratch', dir, report: vitestReport }], ci: false })
    expect(result.lines.at(-1)).toBe('1 passed, 2 failed')
    expect(result.lines).toContainEqual(expect.stringMatching(/^ {4}throws\.test\.js failed outside its tests .*broken at load/))
    expect(result.lines).toContainEqual(expect.stringMatching(/^ {4}syntax\.test\.js failed outside its tests/))
    expect(result.ok).toBe(false)
  })
})
