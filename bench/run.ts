// Runs the benchmark suites (all, or those whose file name starts with an argument) and rewrites their
// sections of results.md, keeping the sections of suites that did not run.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describeMachine, renderTable, resultsPath, runSuite, writeResultsSection, type BenchSuite } from './harness.js'

const here = import.meta.dirname
const wanted = process.argv.slice(2)
const files = readdirSync(join(here, 'suites'))
  .filter((file) => file.endsWith('.bench.ts'))
  .sort()
  .filter((file) => wanted.length === 0 || wanted.some((name) => file.startsWith(name)))

/**
 * Suites measured each in a process of their own (the parent runs them as children, one at a time): what they
 * measure depends on what else the process has compiled (V8 inline caches see every shape in the process).
 */
const ownProcess = new Set(['validation.bench.ts', 'validation-single.bench.ts', 'validation-costs.bench.ts'])
const isChild = process.env['DSH_BENCH_CHILD'] === '1'

const date = new Date().toISOString().slice(0, 10)
let missed = 0
for (const file of files) {
  if (ownProcess.has(file) && !isChild) {
    const child = spawnSync(process.execPath, [...process.execArgv, join(here, 'run.ts'), file], {
      stdio: 'inherit',
      env: { ...process.env, DSH_BENCH_CHILD: '1' },
    })
    if (child.status === null) throw new Error(`${file}: the benchmark process ended by ${child.signal ?? 'an unknown cause'}`)
    missed += child.status
    continue
  }
  const suite = (await import(pathToFileURL(join(here, 'suites', file)).href)).default as BenchSuite
  console.log(`suite ${suite.name}`)
  const { rows, notes } = await runSuite(suite)
  missed += rows.filter((row) => row.target && !row.target.met).length
  const versions = Object.entries({ node: process.version, ...suite.versions })
    .map(([name, version]) => `${name} ${version}`)
    .join(', ')
  writeResultsSection(
    suite.name,
    [
      `## ${suite.name}`,
      '',
      suite.description,
      '',
      `Machine: ${describeMachine()}. Date: ${date}. Versions: ${versions}.`,
      '',
      renderTable(rows),
      notes ? `\n${notes.trim()}` : '',
    ].join('\n'),
  )
}
console.log(`wrote ${resultsPath}${missed ? ` (${missed} target(s) missed)` : ''}`)
// A child reports its missed targets to the parent through its exit code.
if (isChild) process.exitCode = Math.min(missed, 100)
