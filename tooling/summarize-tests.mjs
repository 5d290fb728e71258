// Adds up the per-package vitest JSON reports and prints the closing line `N passed, N failed`.
// Fails on any failed, skipped or todo test, and when no test ran at all.
import { readdirSync, readFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'

const dir = join(import.meta.dirname, '..', '.tmp', 'test-reports')
const files = existsSync(dir) ? readdirSync(dir).filter((file) => file.endsWith('.json')).sort() : []
let passed = 0
let failed = 0
let skipped = 0
for (const file of files) {
  const report = JSON.parse(readFileSync(join(dir, file), 'utf8'))
  const pending = report.numPendingTests + report.numTodoTests
  console.log(
    `  ${file.replace(/\.json$/, '').padEnd(22)} ${String(report.numPassedTests).padStart(5)} passed` +
      `${report.numFailedTests ? `, ${report.numFailedTests} failed` : ''}${pending ? `, ${pending} skipped` : ''}`,
  )
  passed += report.numPassedTests
  failed += report.numFailedTests
  skipped += pending
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`)
if (failed > 0 || skipped > 0 || passed === 0) {
  console.error(passed === 0 ? 'no test ran' : skipped > 0 ? 'skipped tests are defects: fix or delete them' : 'tests failed')
  process.exit(1)
}
