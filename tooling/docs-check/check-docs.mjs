// Extracts every ```ts / ```typescript block from docs/**/*.md and packages/*/README.md, writes each as its own
// module, and type-checks them all with the strict options of the repo against the BUILT packages (what a user
// gets). A block whose info string contains `ignore-check` is skipped (a fragment, like the seeds' partial
// examples); use it sparingly.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'

const here = import.meta.dirname
const root = join(here, '..', '..')
const out = join(here, '.generated')

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
]

rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
const sources = new Map()
let skipped = 0
for (const file of files) {
  const lines = readFileSync(file, 'utf8').split('\n')
  let block
  let start = 0
  lines.forEach((line, index) => {
    const fence = /^```(\S*)(.*)$/.exec(line.trim())
    if (block === undefined && fence && /^(ts|typescript)$/.test(fence[1])) {
      if (/ignore-check/.test(fence[2])) {
        skipped += 1
        block = null
      } else block = []
      start = index + 2
    } else if (block !== undefined && line.trim() === '```') {
      if (block !== null) {
        const name = `${relative(root, file).replace(/[^A-Za-z0-9]+/g, '_')}_L${start}.ts`
        writeFileSync(join(out, name), `${block.join('\n')}\nexport {}\n`)
        sources.set(name, `${relative(root, file)}:${start}`)
      }
      block = undefined
    } else if (block) block.push(line)
  })
}
writeFileSync(
  join(out, 'tsconfig.json'),
  JSON.stringify({
    extends: '../../../tsconfig.base.json',
    compilerOptions: {
      composite: false, declaration: false, declarationMap: false, sourceMap: false, noEmit: true,
      module: 'ESNext', moduleResolution: 'Bundler', noUnusedLocals: false, rootDir: '.',
    },
    include: ['*.ts'],
  }),
)
try {
  execFileSync(join(root, 'node_modules/.bin/tsc'), ['-p', join(out, 'tsconfig.json')], { cwd: here, encoding: 'utf8', stdio: 'pipe' })
} catch (error) {
  const text = `${error.stdout ?? ''}${error.stderr ?? ''}`.replace(/^(\S+?\.ts)\((\d+),(\d+)\)/gm, (_, name, line, column) => {
    const origin = sources.get(name.replace(/^.*\//, ''))
    if (!origin) return `${name}(${line},${column})`
    const [file, first] = origin.split(':')
    return `${file}:${Number(first) + Number(line) - 1}:${column}`
  })
  console.error(`docs type-check failed:\n${text}`)
  process.exit(1)
}
console.log(`docs ok: ${sources.size} TypeScript blocks type-check${skipped ? ` (${skipped} marked ignore-check)` : ''}`)
