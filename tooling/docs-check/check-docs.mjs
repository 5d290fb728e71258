// The docs check, over docs/**/*.md, packages/*/README.md, README.md and the consumer-runner fixture:
// 1. Every ```ts / ```typescript block type-checks with the strict options of the repo against the BUILT packages
//    (what a user gets). A block without `file=` is its own module. Blocks with `file=<path>` are the files of one
//    project (the doc-driven consumer scenarios write them the same way): all of one markdown file's go into one
//    folder at their paths, so `import { x } from './weather-tool.js'` between two blocks resolves. A block whose
//    info string contains `ignore-check` is not type-checked (a fragment, like the seeds' partial examples).
// 2. Install lines: every @dsh/* or cordis package that a file's TypeScript blocks import is named on an
//    `npm install` line of a ```sh block of the same file, and cordis only as cordis@<the version we test with>,
//    because a bare `cordis` installs 3.x, which fails at run time.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { cordisVersion, installLine, publishedPackages } from '../pack-all.mjs'
import { fencedBlocks, importedPackages, isShell, isTypeScript } from './markdown.mjs'

const here = import.meta.dirname
const root = join(here, '..', '..')
const out = join(here, '.generated')

// Contributor docs: inside this repository packages come through `workspace:^`, not `npm install`.
const installRuleExempt = [/^docs\/cookbook\//]

function markdownFiles(dir) {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : markdownFiles(path)
    return entry.name.endsWith('.md') ? [path] : []
  })
}

const files = [
  ...markdownFiles(join(root, 'docs')),
  ...readdirSync(join(root, 'packages')).map((name) => join(root, 'packages', name, 'README.md')).filter(existsSync),
  join(root, 'README.md'),
  join(root, 'tooling/consumers/doc-fixture.md'),
].filter(existsSync)

const slug = (file) => relative(root, file).replace(/[^A-Za-z0-9]+/g, '_')

/** Writes the file's TypeScript blocks under out/; records generated path → "doc.md:line" in `sources`. */
function writeBlocks(file, blocks, sources) {
  let skipped = 0
  for (const block of blocks.filter(isTypeScript)) {
    if (block.attributes['ignore-check']) {
      skipped += 1
      continue
    }
    const origin = `${relative(root, file)}:${block.line}`
    if (typeof block.attributes.file === 'string') {
      const path = normalize(block.attributes.file)
      if (path.startsWith('..') || path.startsWith('/')) throw new Error(`${origin}: file=${path} leaves the project`)
      const target = join(out, slug(file), path)
      mkdirSync(dirname(target), { recursive: true })
      writeFileSync(target, `${block.body}\n`)
      sources.set(relative(here, target), origin)
    } else {
      const target = join(out, `${slug(file)}_L${block.line}.ts`)
      writeFileSync(target, `${block.body}\nexport {}\n`)
      sources.set(relative(here, target), origin)
    }
  }
  return skipped
}

/** The `npm install` lines of a file's shell blocks, as words, comments removed. */
function installLines(blocks) {
  return blocks
    .filter(isShell)
    .flatMap((block) => block.body.split('\n'))
    .map((line) => line.replace(/#.*$/, '').trim().split(/\s+/))
    .map((words) => {
      const start = words.findIndex((word, index) => word === 'npm' && ['install', 'i', 'add'].includes(words[index + 1]))
      return start === -1 ? undefined : words.slice(start)
    })
    .filter(Boolean)
}

/** The packages named by a file's install lines; a `*.tgz` glob names every package. */
function namedOnInstallLines(blocks) {
  const named = new Set()
  for (const words of installLines(blocks)) {
    for (const word of words.slice(2)) {
      if (word.startsWith('-')) continue
      if (word.endsWith('*.tgz')) for (const { name } of publishedPackages()) named.add(name)
      named.add(word)
      const versioned = /^(@dsh\/[^@]+)@/.exec(word) // @dsh/tool-bash@0.1.0 names @dsh/tool-bash
      if (versioned) named.add(versioned[1])
    }
  }
  return named
}

function installProblems(file, blocks) {
  const where = relative(root, file)
  if (installRuleExempt.some((pattern) => pattern.test(where))) return []
  const named = namedOnInstallLines(blocks)
  const cordis = `cordis@${cordisVersion()}`
  const problems = []
  // The tarball line is the one pack:all prints; another spelling (two tarballs, no cordis) fails for users.
  for (const words of installLines(blocks).filter((words) => words.some((word) => word.endsWith('.tgz')))) {
    if (words.join(' ') !== installLine()) problems.push(`${where}: \`${words.join(' ')}\` must be \`${installLine()}\``)
  }
  for (const word of named) {
    if ((word === 'cordis' || word.startsWith('cordis@')) && word !== cordis) {
      problems.push(`${where}: an install line names ${word}; it must be ${cordis} (a bare cordis installs 3.x)`)
    }
  }
  const imported = new Set(blocks.filter(isTypeScript).flatMap((block) => [...importedPackages(block.body)]))
  for (const name of [...imported].sort()) {
    if (name.startsWith('@dsh/') && !named.has(name)) {
      problems.push(`${where}: its examples import ${name}, but no \`npm install\` line of a sh block names it`)
    }
    if (name === 'cordis' && !named.has(cordis)) {
      problems.push(`${where}: its examples import cordis, but no \`npm install\` line of a sh block names ${cordis}`)
    }
  }
  return problems
}

rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
const sources = new Map()
const problems = []
let skipped = 0
for (const file of files) {
  const blocks = fencedBlocks(readFileSync(file, 'utf8'))
  skipped += writeBlocks(file, blocks, sources)
  problems.push(...installProblems(file, blocks))
}
if (problems.length > 0) {
  console.error(`docs install lines:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`)
}
writeFileSync(
  join(out, 'tsconfig.json'),
  JSON.stringify({
    extends: '../../../tsconfig.base.json',
    compilerOptions: {
      composite: false, declaration: false, declarationMap: false, sourceMap: false, noEmit: true,
      module: 'ESNext', moduleResolution: 'Bundler', noUnusedLocals: false, rootDir: '.',
    },
    include: ['**/*.ts'],
  }),
)
try {
  execFileSync(join(root, 'node_modules/.bin/tsc'), ['-p', join(out, 'tsconfig.json')], { cwd: here, encoding: 'utf8', stdio: 'pipe' })
} catch (error) {
  // tsc names the generated file; point at the markdown line instead.
  const text = `${error.stdout ?? ''}${error.stderr ?? ''}`.replace(/^(\S+?\.ts)\((\d+),(\d+)\)/gm, (_, name, line, column) => {
    const origin = sources.get(normalize(name))
    if (!origin) return `${name}(${line},${column})`
    const [file, first] = origin.split(':')
    return `${file}:${Number(first) + Number(line) - 1}:${column}`
  })
  console.error(`docs type-check failed:\n${text}`)
  process.exit(1)
}
if (problems.length > 0) process.exit(1)
console.log(
  `docs ok: ${sources.size} TypeScript blocks type-check${skipped ? ` (${skipped} marked ignore-check)` : ''}; ` +
    `install lines name every imported package and cordis@${cordisVersion()}`,
)
