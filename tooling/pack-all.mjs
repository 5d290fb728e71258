// `pnpm pack:all`: builds the published packages and writes each one's tarball into tarballs/ at the repo root
// (old tarballs removed), then prints the install line that works before the first release. `pnpm pack` rewrites
// workspace:^ into real ranges; installing ALL tarballs in one npm command matters because npm then resolves
// @dsh/tools-core and the other internal dependencies from the given tarballs instead of the registry (404).
// The consumer and package checks import packAll() and verifyTarball() from here.
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync } from 'node:fs'
import { delimiter, isAbsolute, join, relative } from 'node:path'
import { listPackages, root } from './workspace.mjs'

export const tarballsDir = join(root, 'tarballs')
const bin = (name) => join(root, 'node_modules/.bin', name)
// turbo finds pnpm on PATH, so the repo's own binaries come first (as under `pnpm run`).
const env = { ...process.env, PATH: `${join(root, 'node_modules/.bin')}${delimiter}${process.env.PATH}` }
const run = (command, args, cwd) => execFileSync(command, args, { cwd, env, encoding: 'utf8', stdio: 'pipe' })

/** The cordis version the packages are built and tested with (their pinned devDependency). */
export function cordisVersion() {
  const versions = new Set(publishedPackages().map(({ json }) => json.devDependencies?.cordis).filter(Boolean))
  if (versions.size !== 1) throw new Error(`the packages pin different cordis versions: ${[...versions].join(', ')}`)
  return [...versions][0]
}

export function publishedPackages() {
  return listPackages().filter(({ json }) => !json.private)
}

/** The one line that installs every tarball of `dir` (relative to the consumer project) with a working cordis. */
export function installLine(dir = './tarballs') {
  return `npm install ${dir}/*.tgz cordis@${cordisVersion()}`
}

/**
 * Builds (turbo, cached) and packs every published package (or those named in `only`) into `destination`,
 * emptied first. Returns Map<package name, absolute tarball path>.
 */
export function packAll({ destination = tarballsDir, only } = {}) {
  const packages = publishedPackages().filter(({ name }) => only === undefined || only.includes(name))
  run(bin('turbo'), ['run', 'build', '--output-logs=errors-only', ...packages.map(({ name }) => `--filter=${name}`)], root)
  rmSync(destination, { recursive: true, force: true })
  mkdirSync(destination, { recursive: true })
  const tarballs = new Map()
  for (const { dir, name } of packages) {
    // pnpm prints the tarball's path (absolute or relative to the destination) as the last line.
    const last = run(bin('pnpm'), ['pack', '--pack-destination', destination], dir).trim().split('\n').pop()
    tarballs.set(name, isAbsolute(last) ? last : join(destination, last))
  }
  return tarballs
}

/** The text of one file inside a tarball (npm tarballs keep everything under package/), or undefined. */
export function readFromTarball(tarball, path) {
  try {
    return execFileSync('tar', ['-xzOf', tarball, `package/${path}`], { encoding: 'utf8', stdio: 'pipe' })
  } catch {
    return undefined
  }
}

/** What is wrong with a packed tarball, as a list of problems (empty when it is fine). */
export function verifyTarball(tarball) {
  const problems = []
  const license = readFromTarball(tarball, 'LICENSE')
  if (license === undefined) problems.push('has no LICENSE')
  else if (license !== readFileSync(join(root, 'LICENSE'), 'utf8')) problems.push('LICENSE differs from the root LICENSE')
  const manifest = JSON.parse(readFromTarball(tarball, 'package.json') ?? '{}')
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [dependency, range] of Object.entries(manifest[field] ?? {})) {
      if (range.startsWith('workspace:')) problems.push(`${field}.${dependency} is still ${range}`)
    }
  }
  if (readFromTarball(tarball, 'dist/index.js') === undefined) problems.push('has no dist/index.js (not built?)')
  return problems
}

if (import.meta.filename === process.argv[1]) {
  const tarballs = packAll()
  let bad = 0
  for (const [name, file] of tarballs) {
    const problems = verifyTarball(file)
    bad += problems.length
    console.log(`  ${name}: ${relative(root, file)}${problems.length ? ` — ${problems.join('; ')}` : ''}`)
  }
  if (bad > 0) process.exit(1)
  console.log(`\nInstall them all at once in your project (copy tarballs/ into it first):\n\n  ${installLine()}\n`)
}
