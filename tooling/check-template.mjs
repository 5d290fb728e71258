// The contributor template must produce a package that passes the checks unchanged: in a copy of the repository
// (outside the workspace), run `pnpm new:tool sample`, then build, type-check and test the new package and its
// dependencies, check the structure, and run publint and attw on it.
import { execFileSync } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { root } from './workspace.mjs'

const copy = mkdtempSync(join(tmpdir(), 'dsh-template-'))
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: '1', PATH: `${join(copy, 'node_modules/.bin')}:${process.env.PATH}` }
const run = (command, args, cwd = copy) => execFileSync(command, args, { cwd, encoding: 'utf8', stdio: 'pipe', env })
try {
  const files = run('git', ['ls-files', '-co', '--exclude-standard', '-z'], root).split('\0').filter(Boolean)
  for (const file of files) {
    try {
      cpSync(join(root, file), join(copy, file), { recursive: false })
    } catch (error) {
      if (error.code === 'ENOENT') {
        // the parent folder does not exist yet
        execFileSync('mkdir', ['-p', dirname(join(copy, file))])
        cpSync(join(root, file), join(copy, file))
      } else throw error
    }
  }
  run(join(root, 'node_modules/.bin/pnpm'), ['install', '--frozen-lockfile', '--prefer-offline'])
  run('node', ['tooling/new-tool.mjs', 'sample', 'A sample tool made by the template check.'])
  const bin = join(copy, 'node_modules/.bin')
  run(join(bin, 'turbo'), ['run', 'build', '--filter=@dsh/tool-sample...', '--output-logs=errors-only'])
  run(join(bin, 'turbo'), ['run', 'typecheck', 'test', '--filter=@dsh/tool-sample', '--output-logs=errors-only'])
  run('node', ['tooling/check-structure.mjs'])
  const sample = join(copy, 'packages/tool-sample')
  run(join(bin, 'publint'), ['--strict'], sample)
  run(join(bin, 'attw'), ['--pack', '.', '--profile', 'esm-only'], sample)
  run(join(bin, 'oxlint'), ['--deny-warnings', 'packages/tool-sample'])
  console.log('template ok: pnpm new:tool sample builds, type-checks, tests and passes publint, attw and the structure check')
} catch (error) {
  console.error(`template check failed:\n${error.stdout ?? ''}${error.stderr ?? ''}${error.message}`)
  process.exitCode = 1
} finally {
  rmSync(copy, { recursive: true, force: true })
}
