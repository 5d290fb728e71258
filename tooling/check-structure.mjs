// Fails when a package lacks what every package must have (STYLE.md, docs/cookbook/adding-a-tool-package.md):
// README.md, src/index.ts, tests, type tests, a description, a reference in the root tsconfig.json, its configs
// (tsconfig.json, vitest.config.ts, and tsconfig.build.json + tsup.config.ts for a published package), and for
// published packages the package.json shape publint cannot see, a reference page docs/reference/<folder>.md that
// the README links to, a docs-check dependency (so the TypeScript in its docs is type-checked against its build),
// and, until its first release (no CHANGELOG.md yet), a changeset that names it.
// The front door names every package under packages/: a row of the README's package table that links to its folder,
// and a line of the architecture page's package diagram (its first code block). `pnpm new:tool` adds both.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { listPackages, root } from './workspace.mjs'

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
  )
}

const readJson = (file) => JSON.parse(readFileSync(join(root, file), 'utf8'))
const tsconfigReferences = new Set((readJson('tsconfig.json').references ?? []).map((reference) => reference.path))
const docsCheckDependencies = readJson('tooling/docs-check/package.json').dependencies ?? {}

/** The package names each pending changeset's front matter bumps. */
const changesetDir = join(root, '.changeset')
const changesetNames = readdirSync(changesetDir)
  .filter((file) => file.endsWith('.md') && file !== 'README.md')
  .flatMap((file) => {
    const frontMatter = /^---\n([\s\S]*?)\n---/.exec(readFileSync(join(changesetDir, file), 'utf8'))?.[1] ?? ''
    return [...frontMatter.matchAll(/^\s*['"]?([^'":\s]+)['"]?\s*:/gm)].map((match) => match[1])
  })

/** The rows of the table under the README's `Packages` heading, and the architecture page's first code block. */
const readme = readFileSync(join(root, 'README.md'), 'utf8')
const packagesSection = /^#{2,4} Packages\n([\s\S]*?)(?=^#{1,4} )/m.exec(readme)?.[1] ?? ''
const packageRows = packagesSection.split('\n').filter((line) => line.startsWith('|'))
const architecture = readFileSync(join(root, 'docs/architecture.md'), 'utf8')
const diagram = /^```[^\n]*\n([\s\S]*?)^```/m.exec(architecture)?.[1] ?? ''

const problems = []
const packages = listPackages()
if (packageRows.length === 0) problems.push('README.md: no table under a "Packages" heading')
if (diagram === '') problems.push('docs/architecture.md: no package diagram (its first code block)')
for (const { dir, folder, name, json } of packages) {
  const where = relative(root, dir)
  const need = (condition, message) => condition || problems.push(`${where}: ${message}`)
  need(name === `@dsh/${folder}`, `name must be @dsh/${folder} (the folder is the unscoped name), found ${name}`)
  need(typeof json.description === 'string' && json.description.length > 0, 'package.json has no description')
  need(existsSync(join(dir, 'README.md')), 'README.md is missing')
  need(existsSync(join(dir, 'src', 'index.ts')), 'src/index.ts is missing')
  for (const file of ['tsconfig.json', 'vitest.config.ts']) need(existsSync(join(dir, file)), `${file} is missing`)
  const sources = existsSync(join(dir, 'src')) ? walk(join(dir, 'src')) : []
  need(sources.some((file) => file.endsWith('.test.ts')), 'no tests (src/**/*.test.ts)')
  need(
    packageRows.some((row) => row.includes(`[\`${name}\`](${where})`)),
    `the README's Packages table has no row [\`${name}\`](${where})`,
  )
  need(
    new RegExp(`${name.replace(/[/.-]/g, '\\$&')}(?![\\w-])`).test(diagram),
    `the package diagram of docs/architecture.md (its first code block) does not name ${name}`,
  )
  need(tsconfigReferences.has(where), `the root tsconfig.json has no reference { "path": "${where}" } (tsc --build would skip it)`)
  if (json.private) continue
  for (const file of ['tsconfig.build.json', 'tsup.config.ts']) need(existsSync(join(dir, file)), `${file} is missing`)
  need(sources.some((file) => file.endsWith('.test-d.ts')), 'no type tests (src/**/*.test-d.ts)')
  need(json.type === 'module', '"type" must be "module"')
  need(json.sideEffects === false, '"sideEffects" must be false')
  need(json.exports?.['.']?.types && json.exports?.['.']?.import, 'exports["."] needs types and import')
  need(json.exports?.['./package.json'] === './package.json', 'exports must expose ./package.json')
  need(JSON.stringify(json.files) === '["dist"]', 'files must be ["dist"]')
  need(json.engines?.node === '>=20', 'engines.node must be ">=20"')
  need(json.publishConfig?.access === 'public', 'publishConfig.access must be "public"')
  need(json.repository?.directory === where, `repository.directory must be "${where}"`)
  need(json.license === 'MIT', '"license" must be "MIT"')
  const license = join(dir, 'LICENSE')
  need(
    existsSync(license) && readFileSync(license, 'utf8') === readFileSync(join(root, 'LICENSE'), 'utf8'),
    'LICENSE must be a copy of the root LICENSE (npm and pnpm pack it even with files: ["dist"])',
  )
  for (const script of ['build', 'typecheck', 'test']) need(json.scripts?.[script], `scripts.${script} is missing`)
  const reference = `docs/reference/${folder}.md`
  need(existsSync(join(root, reference)), `${reference} (its reference page) is missing`)
  need(
    !existsSync(join(dir, 'README.md')) || readFileSync(join(dir, 'README.md'), 'utf8').includes(reference),
    `README.md does not link to ${reference}`,
  )
  need(
    docsCheckDependencies[name] === 'workspace:^',
    `tooling/docs-check/package.json has no dependency "${name}": "workspace:^" (the docs check could not type-check its docs)`,
  )
  need(
    existsSync(join(dir, 'CHANGELOG.md')) || changesetNames.includes(name),
    `not released yet (no CHANGELOG.md) and no .changeset/*.md names ${name}: its first release needs a changeset`,
  )
}
if (problems.length > 0) {
  console.error(`structure check failed:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`)
  process.exit(1)
}
console.log(`structure ok: ${packages.length} packages`)
