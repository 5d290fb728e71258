// Runs the benchmark suites (all, or those whose file name starts with an argument) and rewrites their
// sections of results.md, keeping the sections of suites that did not run.
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

const date = new Date().toISOString().slice(0, 10)
let missed = 0
for (const file of files) {
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
