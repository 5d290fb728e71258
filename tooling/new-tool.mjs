// `pnpm new:tool <name> [description]`: creates packages/tool-<name>, a tool package that builds, tests (loop,
// INVALID_ARGS retry, hot unload, type inference) and passes publint/attw as it is, from tooling/templates/tool.
// It also writes the package's reference page and changeset, adds it to the root tsconfig.json and to the docs
// check's dependencies (tooling/docs-check/package.json), names it in the README's package table and the
// architecture page's package diagram (the structure check requires both), and links it with `pnpm install`.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
const [name, ...words] = process.argv.slice(2)
if (name === undefined || !/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(name)) {
  console.error('usage: pnpm new:tool <name> [description]   (name in kebab-case, like "weather" or "web-fetch")')
  process.exit(2)
}
const packageName = `tool-${name}`
const target = join(root, 'packages', packageName)
if (existsSync(target)) {
  console.error(`packages/${packageName} exists already`)
  process.exit(2)
}
const camel = name.replace(/-([a-z0-9])/g, (_, letter) => letter.toUpperCase())
const values = {
  __PACKAGE__: packageName,
  __NAME__: name,
  __TOOL__: name.replace(/-/g, '_'),
  __CAMEL__: camel,
  __DESCRIPTION__: words.join(' ') || `The ${name.replace(/-/g, '_')} tool for dsh tools agents.`,
}
const fill = (text) => text.replace(/__[A-Z]+__/g, (key) => values[key] ?? key)
const templates = join(root, 'tooling/templates/tool')

function copy(from, to) {
  mkdirSync(to, { recursive: true })
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (entry.isDirectory()) copy(join(from, entry.name), join(to, fill(entry.name)))
    else if (!['reference.md.tmpl', 'changeset.md.tmpl'].includes(entry.name)) {
      writeFileSync(join(to, fill(entry.name.replace(/\.tmpl$/, ''))), fill(readFileSync(join(from, entry.name), 'utf8')))
    }
  }
}
copy(templates, target)
mkdirSync(join(root, 'docs/reference'), { recursive: true })
writeFileSync(join(root, 'docs/reference', `${packageName}.md`), fill(readFileSync(join(templates, 'reference.md.tmpl'), 'utf8')))
writeFileSync(join(root, '.changeset', `${packageName}-initial.md`), fill(readFileSync(join(templates, 'changeset.md.tmpl'), 'utf8')))

const tsconfigPath = join(root, 'tsconfig.json')
const tsconfig = JSON.parse(readFileSync(tsconfigPath, 'utf8'))
tsconfig.references.push({ path: `packages/${packageName}` })
tsconfig.references.sort((a, b) => (a.path === 'bench') - (b.path === 'bench') || a.path.localeCompare(b.path))
writeFileSync(tsconfigPath, `${JSON.stringify(tsconfig, null, 2)}\n`)

// The docs check type-checks the README's and the reference page's code against the package's build.
const docsCheckPath = join(root, 'tooling/docs-check/package.json')
const docsCheck = JSON.parse(readFileSync(docsCheckPath, 'utf8'))
docsCheck.dependencies = Object.fromEntries(
  Object.entries({ ...docsCheck.dependencies, [`@dsh/${packageName}`]: 'workspace:^' }).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
)
writeFileSync(docsCheckPath, `${JSON.stringify(docsCheck, null, 2)}\n`)

// The front door names every package: a row of the README's package table (after its last row) and a line of the
// architecture diagram (among the packages that point at the registry, the ones ending in ┤ above it).
const readmePath = join(root, 'README.md')
const readme = readFileSync(readmePath, 'utf8').split('\n')
const packagesHeading = readme.findIndex((line) => /^#{2,4} Packages$/.test(line))
let lastRow = -1
for (let index = packagesHeading + 1; packagesHeading >= 0 && index < readme.length && !/^#{1,4} /.test(readme[index]); index += 1) {
  if (readme[index].startsWith('|')) lastRow = index
}
if (lastRow === -1) throw new Error("README.md has no table under a 'Packages' heading: add the package's row by hand")
readme.splice(lastRow + 1, 0, `| [\`@dsh/${packageName}\`](packages/${packageName}) | ${values.__DESCRIPTION__} |`)
writeFileSync(readmePath, readme.join('\n'))

const architecturePath = join(root, 'docs/architecture.md')
const architecture = readFileSync(architecturePath, 'utf8').split('\n')
const registryLine = architecture.findIndex((line) => /^\s+@dsh\/tools-registry\b/.test(line))
const above = architecture.slice(0, registryLine).findLastIndex((line) => /├── @dsh\/\S+ ─+┤/.test(line))
if (registryLine === -1 || above === -1) throw new Error('docs/architecture.md: no package diagram to add the package to: add it by hand')
const column = architecture[above].indexOf('┤')
const start = `        ├── @dsh/${packageName} `
architecture.splice(above + 1, 0, `${start}${'─'.repeat(Math.max(1, column - start.length))}┤    (${values.__DESCRIPTION__})`)
writeFileSync(architecturePath, architecture.join('\n'))

const pnpm = existsSync(join(root, 'node_modules/.bin/pnpm')) ? join(root, 'node_modules/.bin/pnpm') : 'pnpm'
// A new package always changes the lockfile (and pnpm freezes it by default when CI is set).
execFileSync(pnpm, ['install', '--no-frozen-lockfile', '--prefer-offline'], { cwd: root, stdio: 'inherit' })
console.log(`created packages/${packageName} (@dsh/${packageName}), docs/reference/${packageName}.md and its changeset;
added it to tsconfig.json, tooling/docs-check/package.json, the README's package table and docs/architecture.md.
next: edit src/${name}-tool.ts, then run npm test`)
