// publint and attw (esm-only profile) on every published package, from its packed tarball.
import { execFileSync } from 'node:child_process'
import { listPackages } from './workspace.mjs'

let failed = 0
for (const { dir, name, json } of listPackages()) {
  if (json.private) continue
  for (const [tool, args] of [
    ['publint', ['--strict']],
    ['attw', ['--pack', '.', '--profile', 'esm-only', '--format', 'table-flipped']],
  ]) {
    try {
      execFileSync(tool, args, { cwd: dir, stdio: 'pipe', encoding: 'utf8' })
      console.log(`  ${name}: ${tool} ok`)
    } catch (error) {
      failed += 1
      console.error(`  ${name}: ${tool} FAILED\n${error.stdout ?? ''}${error.stderr ?? ''}`)
    }
  }
}
if (failed > 0) process.exit(1)
