// Consumer checks: packs every published package, then for each scenario in tooling/consumers/<name>/ makes a
// scratch project OUTSIDE the workspace, installs only the tarballs the scenario names (npm, like a user),
// type-checks its program against the shipped .d.ts files with skipLibCheck off, runs it, and checks that
// the installed @dsh packages are exactly the expected set and that the program printed what it should.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, copyFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { listPackages, root } from './workspace.mjs'

const only = process.argv.slice(2)
const packs = mkdtempSync(join(tmpdir(), 'dsh-packs-'))
const tarballs = new Map()
const published = listPackages().filter(({ json }) => !json.private)
const run = (command, args, cwd) => execFileSync(command, args, { cwd, encoding: 'utf8', stdio: 'pipe' })

let failures = 0
try {
  for (const { dir, name } of published) {
    const out = run(join(root, 'node_modules/.bin/pnpm'), ['pack', '--pack-destination', packs], dir).trim().split('\n').pop()
    tarballs.set(name, out.startsWith('/') ? out : join(packs, out))
  }
  const overrides = Object.fromEntries([...tarballs].map(([name, file]) => [name, `file:${file}`]))
  const rootJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const scenariosDir = join(root, 'tooling/consumers')
  for (const scenario of readdirSync(scenariosDir).sort()) {
    if (only.length > 0 && !only.includes(scenario)) continue
    const spec = JSON.parse(readFileSync(join(scenariosDir, scenario, 'scenario.json'), 'utf8'))
    const missing = spec.install.filter((name) => !tarballs.has(name))
    if (missing.length > 0) {
      failures += 1
      console.error(`  ${scenario}: FAILED, not a published package: ${missing.join(', ')}`)
      continue
    }
    const project = mkdtempSync(join(tmpdir(), `dsh-consumer-${scenario}-`))
    try {
      const dependencies = Object.fromEntries(spec.install.map((name) => [name, overrides[name]]))
      Object.assign(dependencies, spec.registry ?? {})
      dependencies['@types/node'] = rootJson.devDependencies['@types/node']
      writeFileSync(
        join(project, 'package.json'),
        JSON.stringify({ name: `consumer-${scenario}`, private: true, type: 'module', dependencies, overrides }, null, 2),
      )
      writeFileSync(
        join(project, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022', lib: ['ES2023'],
            // cordis 4.0.0-rc.10 ships extension-less re-exports, which NodeNext cannot follow: a consumer of the
            // cordis-based packages needs Bundler resolution (the scenario says so); the rest are checked strictly.
            ...(spec.moduleResolution === 'Bundler'
              ? { module: 'ESNext', moduleResolution: 'Bundler' }
              : { module: 'NodeNext', moduleResolution: 'NodeNext' }),
            strict: true,
            exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true, skipLibCheck: false,
            types: ['node'], outDir: 'out', rootDir: 'src',
          },
          include: ['src'],
        }),
      )
      mkdirSync(join(project, 'src'))
      copyFileSync(join(scenariosDir, scenario, 'main.ts'), join(project, 'src/main.ts'))
      run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline', '--loglevel=error'], project)
      const scope = join(project, 'node_modules/@dsh')
      const installed = existsSync(scope) ? readdirSync(scope).map((folder) => `@dsh/${folder}`).sort() : []
      const expected = [...spec.expectInstalled].sort()
      if (JSON.stringify(installed) !== JSON.stringify(expected)) {
        throw new Error(`installed ${JSON.stringify(installed)}, expected exactly ${JSON.stringify(expected)}`)
      }
      run(join(root, 'node_modules/.bin/tsc'), ['--project', join(project, 'tsconfig.json')], project)
      const output = run('node', [join(project, 'out/main.js')], project)
      for (const line of spec.expectOutput) {
        if (!output.includes(line)) throw new Error(`output lacks ${JSON.stringify(line)}:\n${output}`)
      }
      console.log(`  ${scenario}: ok (installed ${installed.join(', ')})`)
    } catch (error) {
      failures += 1
      console.error(`  ${scenario}: FAILED\n${error.stdout ?? ''}${error.stderr ?? ''}${error.message}`)
    } finally {
      rmSync(project, { recursive: true, force: true })
    }
  }
} finally {
  rmSync(packs, { recursive: true, force: true })
}
if (failures > 0) process.exit(1)
