// Runs the benchmark suites (all, or those named on the command line) and rewrites their sections of
// results.md, keeping the sections of suites that did not run.
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { renderTable, runSuite, type BenchSuite } from './harness.js'

const here = import.meta.dirname
const resultsPath = join(here, 'results.md')
const wanted = process.argv.slice(2)
const files = readdirSync(join(here, 'suites'))
  .filter((file) => file.endsWith('.bench.ts'))
  .sort()
  .filter((file) => wanted.length === 0 || wanted.some((name) => file.startsWith(name)))

const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${process.platform}/${process.arch}`
const date = new Date().toISOString().slice(0, 10)

let results = existsSync(resultsPath) ? readFileSync(resultsPath, 'utf8') : ''
const header = '# Benchmark results\n\nWritten by `pnpm bench` (one section per suite in `bench/suites/`). Ratios are medians against the baseline case timed in the same run; a target holds when the ratio is at most the stated bound.\n'
if (!results.startsWith('# Benchmark results')) results = header

let missed = 0
for (const file of files) {
  const suite = (await import(pathToFileURL(join(here, 'suites', file)).href)).default as BenchSuite
  console.log(`suite ${suite.name}`)
  const { rows, notes } = await runSuite(suite)
  missed += rows.filter((row) => row.target && !row.target.met).length
  const versions = Object.entries({ node: process.version, ...suite.versions })
    .map(([name, version]) => `${name} ${version}`)
    .join(', ')
  const section = [
    `<!-- suite:${suite.name} -->`,
    `## ${suite.name}`,
    '',
    suite.description,
    '',
    `Machine: ${machine}. Date: ${date}. Versions: ${versions}.`,
    '',
    renderTable(rows),
    notes ? `\n${notes.trim()}` : '',
    `<!-- /suite:${suite.name} -->`,
  ].join('\n')
  const pattern = new RegExp(`<!-- suite:${suite.name} -->[\\s\\S]*?<!-- /suite:${suite.name} -->`)
  results = pattern.test(results) ? results.replace(pattern, section) : `${results.trimEnd()}\n\n${section}\n`
  writeFileSync(resultsPath, results)
}
console.log(`wrote ${resultsPath}${missed ? ` (${missed} target(s) missed)` : ''}`)
