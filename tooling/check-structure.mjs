// Fails when a package lacks what every package must have (STYLE.md): README.md, src/index.ts, tests, type
// tests, a description, and for published packages the package.json shape publint cannot see.
import { existsSync, readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { listPackages, root } from './workspace.mjs'

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
  )
}

const problems = []
const packages = listPackages()
for (const { dir, folder, name, json } of packages) {
  const where = relative(root, dir)
  const need = (condition, message) => condition || problems.push(`${where}: ${message}`)
  need(name === `@dsh/${folder}`, `name must be @dsh/${folder} (the folder is the unscoped name), found ${name}`)
  need(typeof json.description === 'string' && json.description.length > 0, 'package.json has no description')
  need(existsSync(join(dir, 'README.md')), 'README.md is missing')
  need(existsSync(join(dir, 'src', 'index.ts')), 'src/index.ts is missing')
  const sources = existsSync(join(dir, 'src')) ? walk(join(dir, 'src')) : []
  need(sources.some((file) => file.endsWith('.test.ts')), 'no tests (src/**/*.test.ts)')
  if (json.private) continue
  need(sources.some((file) => file.endsWith('.test-d.ts')), 'no type tests (src/**/*.test-d.ts)')
  need(json.type === 'module', '"type" must be "module"')
  need(json.sideEffects === false, '"sideEffects" must be false')
  need(json.exports?.['.']?.types && json.exports?.['.']?.import, 'exports["."] needs types and import')
  need(json.exports?.['./package.json'] === './package.json', 'exports must expose ./package.json')
  need(JSON.stringify(json.files) === '["dist"]', 'files must be ["dist"]')
  need(json.engines?.node === '>=20', 'engines.node must be ">=20"')
  need(json.publishConfig?.access === 'public', 'publishConfig.access must be "public"')
  need(json.repository?.directory === where, `repository.directory must be "${where}"`)
  for (const script of ['build', 'typecheck', 'test']) need(json.scripts?.[script], `scripts.${script} is missing`)
}
if (problems.length > 0) {
  console.error(`structure check failed:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`)
  process.exit(1)
}
console.log(`structure ok: ${packages.length} packages`)
