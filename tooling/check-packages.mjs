// Every published package: publint and attw (esm-only profile) from its packed tarball; the cordis ranges rule
// (tooling/publish-check/cordis-range.mjs); and the tarball pack:all writes carries the root LICENSE, real ranges
// instead of workspace:^, and its build; and that every error class a built entry exports keeps its name (a class
// body that names its own class makes esbuild rename it, `_BashConfigError`, which stack traces would show).
// `node tooling/check-packages.mjs [@dsh/name…]` checks only the packages named (the template check names its sample).
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { cordisVersion, packAll, verifyTarball } from './pack-all.mjs'
import { cordisRangeProblems } from './publish-check/cordis-range.mjs'
import { listPackages } from './workspace.mjs'

let failed = 0
const report = (name, what, problems) => {
  if (problems.length === 0) return console.log(`  ${name}: ${what} ok`)
  failed += 1
  console.error(`  ${name}: ${what} FAILED\n${problems.map((problem) => `    - ${problem}`).join('\n')}`)
}

/** Error classes exported by the package's built entries whose `name` is not their export name. */
async function renamedClasses(dir, json) {
  const problems = []
  for (const [subpath, target] of Object.entries(json.exports ?? {})) {
    const file = typeof target === 'object' && target !== null ? target.import : undefined
    if (typeof file !== 'string' || !file.endsWith('.js')) continue
    const entry = await import(pathToFileURL(join(dir, file)).href)
    for (const [exportName, value] of Object.entries(entry)) {
      if (typeof value !== 'function' || !(value.prototype instanceof Error) || value.name === exportName) continue
      problems.push(`${subpath}: the class exported as ${exportName} is named ${value.name} (keep the class body from naming its own class)`)
    }
  }
  return problems
}

const only = process.argv.length > 2 ? process.argv.slice(2) : undefined
const selected = listPackages().filter(({ name, json }) => !json.private && (only === undefined || only.includes(name)))
const unknown = (only ?? []).filter((name) => !selected.some((selectedPackage) => selectedPackage.name === name))
if (unknown.length > 0) {
  console.error(`check-packages: not a published package of this workspace: ${unknown.join(', ')}`)
  process.exit(2)
}
const pinned = cordisVersion()
for (const { dir, name, json } of selected) {
  for (const [tool, args] of [
    ['publint', ['--strict']],
    ['attw', ['--pack', '.', '--profile', 'esm-only', '--format', 'table-flipped']],
  ]) {
    try {
      execFileSync(tool, args, { cwd: dir, stdio: 'pipe', encoding: 'utf8' })
      report(name, tool, [])
    } catch (error) {
      report(name, tool, [`${error.stdout ?? ''}${error.stderr ?? ''}`])
    }
  }
  report(name, 'cordis ranges', cordisRangeProblems(json, pinned))
  report(name, 'class names', await renamedClasses(dir, json))
}

// Packed into a scratch folder, so the check neither needs nor replaces the user's tarballs/.
const scratch = mkdtempSync(join(tmpdir(), 'dsh-check-packages-'))
try {
  for (const [name, tarball] of packAll({ destination: scratch, only })) report(name, 'tarball (LICENSE, ranges, dist)', verifyTarball(tarball))
} finally {
  rmSync(scratch, { recursive: true, force: true })
}
if (failed > 0) process.exit(1)
