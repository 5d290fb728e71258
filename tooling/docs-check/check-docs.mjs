// The docs check, over docs/**/*.md, packages/*/README.md, README.md and the consumer-runner fixture:
// 1. Every ```ts / ```typescript block type-checks with the strict options of the repo against the BUILT packages
//    (what a user gets). A block without `file=` is its own module. Blocks with `file=<path>` are the files of one
//    project (the doc-driven consumer scenarios write them the same way): all of one markdown file's go into one
//    folder at their paths, so `import { x } from './weather-tool.js'` between two blocks resolves. A block whose
//    info string contains `ignore-check` is not type-checked (a fragment, like the seeds' partial examples).
// 2. Install lines: every @dsh/* or cordis package that a file's TypeScript blocks import is named on an
//    `npm install` line of a ```sh block of the same file, and cordis only as cordis@<the version we test with>,
//    because a bare `cordis` installs 3.x, which fails at run time.
// 3. References (references.mjs): every relative link and anchor, and every repository path written as code, names
//    something in the repository, and no page cites a document users do not have. Also over examples/*/README.md.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { cordisVersion, installLine, publishedPackages } from '../pack-all.mjs'
import { installProblems } from './install-lines.mjs'
import { referenceProblems } from './references.mjs'
import { fencedBlocks, isTypeScript } from './markdown.mjs'

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

const packageNames = publishedPackages().map(({ name }) => name)
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

rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
const sources = new Map()
const problems = []
let skipped = 0
for (const file of files) {
  const blocks = fencedBlocks(readFileSync(file, 'utf8'))
  skipped += writeBlocks(file, blocks, sources)
  const where = relative(root, file)
  if (!installRuleExempt.some((pattern) => pattern.test(where))) {
    const rule = { cordis: `cordis@${cordisVersion()}`, installLine: installLine(), packageNames }
    problems.push(...installProblems(blocks, rule).map((problem) => `${where}: ${problem}`))
  }
}
const exampleReadmes = readdirSync(join(root, 'examples'))
  .map((name) => join(root, 'examples', name, 'README.md'))
  .filter(existsSync)
// The root README's `npm run <script>` commands name scripts of the root package.json (a renamed script fails here).
const rootScripts = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts ?? {}
const readmeText = readFileSync(join(root, 'README.md'), 'utf8')
for (const [, script] of readmeText.matchAll(/\bnpm run(?: -s)? ([\w:.-]+)/g)) {
  if (!(script in rootScripts)) problems.push(`README.md: \`npm run ${script}\` names no script of the root package.json`)
}
const referenceIssues = [...files.filter((file) => !file.includes('tooling/consumers')), ...exampleReadmes].flatMap((file) =>
  referenceProblems(file, readFileSync(file, 'utf8'), root).map((problem) => `${relative(root, file)}:${problem}`),
)
if (referenceIssues.length > 0) {
  console.error(`docs references:\n${referenceIssues.map((problem) => `  - ${problem}`).join('\n')}`)
}
if (problems.length > 0) {
  console.error(`docs install lines:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`)
}
problems.push(...referenceIssues)
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
    `install lines name every imported package and cordis@${cordisVersion()}; every reference resolves`,
)
