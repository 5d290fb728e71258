// Consumer checks: the packages as a user gets them, always in scratch projects OUTSIDE the workspace, installed
// with npm. The tarballs come from pack-all.mjs (the same `pnpm pack` output the docs tell users to install).
//   tarball:<name>   tooling/consumers/<name>/: install only the tarballs the scenario names, type-check its
//                    main.ts against the shipped .d.ts (skipLibCheck off), run it, check the installed @dsh set
//                    and the output. A scenario with `program` runs that JavaScript file instead (no type-check),
//                    and `npmFlags` are added to its npm install (cordis-3-host: --legacy-peer-deps). `setup` names
//                    a bash script run in the project before the type-check, `paths` goes into its tsconfig
//                    (nodenext-cordis: the cordis types shim of docs/reference/tools-registry.md).
//   doc:<file>       a markdown file run literally (see docs-check/markdown.mjs): its `sh run` blocks in a project
//                    that holds only tarballs/, its `file=` blocks written, its `text output` blocks checked.
//   registry:<name>  every tarball published to a local verdaccio; plain `npm install @dsh/<package>` in a project
//                    whose .npmrc scopes @dsh to it, so npm itself resolves our dependency and peer ranges:
//                    registry-bash (that scenario's program), each-package (each alone: npm ls, import) and
//                    update-leaf (a new tool-bash patch release; `npm update` must change that package alone).
// `node tooling/check-consumers.mjs [selector…] [--package=@dsh/name…]` runs the scenarios whose name, group or short
// name is given; `--package` limits each-package to the packages named (every tarball is still published).
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { constants, tmpdir } from 'node:os'
import { delimiter, dirname, join, normalize } from 'node:path'
import { fencedBlocks } from './docs-check/markdown.mjs'
import { cordisVersion, packAll, readFromTarball } from './pack-all.mjs'
import { startRegistry } from './publish-check/local-registry.mjs'
import { root } from './workspace.mjs'

// The docs whose commands must work as written. Explicit: a doc here without a `sh run` block fails.
const docScenarios = ['README.md', 'docs/guide/build-a-tool.md', 'tooling/consumers/doc-fixture.md']
const scenariosDir = join(root, 'tooling/consumers')
const rootJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const cordis = `cordis@${cordisVersion()}`

// ---- processes and clean-up --------------------------------------------------------------------------------------

const children = new Set()
const cleanups = []
const scratchDirs = []
const registryDirs = []
/** A temp folder that is removed at the end, also when the check is interrupted. */
function scratch(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  scratchDirs.push(dir)
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}
// One clean-up, shared by the normal end and a signal arriving meanwhile (whichever comes first is awaited by both).
let cleaning
function cleanUp() {
  cleaning ??= (async () => {
    for (const child of children) killGroup(child, 'SIGTERM')
    for (const cleanup of cleanups.reverse()) await cleanup()
    const left = [...scratchDirs, ...registryDirs].filter((dir) => existsSync(dir))
    if (left.length > 0) throw new Error(`scratch folders left behind: ${left.join(', ')}`)
    console.log(`  cleaned up: ${scratchDirs.length + registryDirs.length} scratch folders removed${registryDirs.length ? ', verdaccio stopped (pid checked)' : ''}`)
  })()
  return cleaning
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    console.error(`\n  interrupted (${signal}): stopping the registry and removing scratch folders`)
    cleanUp()
      .catch((error) => console.error(`  clean-up: FAILED\n${error.message}`))
      .finally(() => process.exit(128 + constants.signals[signal]))
  })
}

// What a user's shell would have: no npm/pnpm variables from `pnpm run`, and not the repo's node_modules/.bin
// (a doc that forgets to install typescript must not borrow the repo's tsc through npx).
const repoBin = join(root, 'node_modules/.bin')
const consumerEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !/^(npm_|pnpm_|PNPM_|INIT_CWD$|TURBO_)/i.test(key)),
)
consumerEnv.PATH = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((entry) => !entry.startsWith(root) && !/node_modules[/\\].bin$/.test(entry))
  .join(delimiter)
// prefer-offline only reuses what npm already cached (cordis, tsx…); the update scenario asks for --prefer-online.
Object.assign(consumerEnv, {
  npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', npm_config_prefer_offline: 'true',
})
// This machine's user .npmrc drops `resolved` from lockfiles; the registry scenarios read it to see where @dsh came from.
consumerEnv.npm_config_omit_lockfile_registry_resolved = 'false'

// Each command is a process group of its own, so stopping it also stops what it started (npx → tsx → node).
function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal)
  } catch {
    // already gone
  }
}

/** Runs a command (async, so signals are handled meanwhile); resolves to stdout, rejects with both streams. */
function run(command, args, { cwd, timeout = 600_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: consumerEnv, stdio: ['pipe', 'pipe', 'pipe'], detached: true })
    children.add(child)
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.stdin.end()
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), timeout)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      children.delete(child)
      if (code === 0) return resolve(stdout)
      const error = new Error(`${command} ${args.join(' ')} exited with ${code ?? signal} in ${cwd}`)
      Object.assign(error, { stdout, stderr })
      reject(error)
    })
  })
}
const npm = (args, cwd) => run('npm', [...args, '--loglevel=error'], { cwd })

// ---- shared steps ----------------------------------------------------------------------------------------------

function installedDsh(project) {
  const scope = join(project, 'node_modules/@dsh')
  return existsSync(scope) ? readdirSync(scope).map((folder) => `@dsh/${folder}`).sort() : []
}

function expectInstalled(project, expected) {
  const installed = installedDsh(project)
  if (JSON.stringify(installed) !== JSON.stringify([...expected].sort())) {
    throw new Error(`installed ${JSON.stringify(installed)}, expected exactly ${JSON.stringify([...expected].sort())}`)
  }
  return installed
}

/** Writes the scenario's main.ts and a strict tsconfig, type-checks it against the shipped .d.ts, runs it. */
async function typeCheckAndRun(project, scenario, spec) {
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022', lib: ['ES2023'],
        // cordis 4.0.0-rc.10 ships extension-less re-exports, which NodeNext cannot follow: a consumer of the
        // cordis-based packages needs Bundler resolution, or NodeNext with the documented cordis types shim (its
        // `setup` commands and `paths`); the scenario says which. The rest are checked strictly.
        ...(spec.moduleResolution === 'Bundler'
          ? { module: 'ESNext', moduleResolution: 'Bundler' }
          : { module: 'NodeNext', moduleResolution: 'NodeNext' }),
        ...(spec.paths === undefined ? {} : { paths: spec.paths }),
        strict: true,
        exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true, skipLibCheck: false,
        types: ['node'], outDir: 'out', rootDir: 'src',
      },
      include: ['src'],
    }),
  )
  // The scenario's setup script: the commands a user runs in the project after the install, as the docs give them.
  if (spec.setup !== undefined) await run('bash', ['-euo', 'pipefail', join(scenariosDir, scenario, spec.setup)], { cwd: project })
  mkdirSync(join(project, 'src'), { recursive: true })
  cpSync(join(scenariosDir, scenario, 'main.ts'), join(project, 'src/main.ts'))
  await run(join(repoBin, 'tsc'), ['--project', join(project, 'tsconfig.json')], { cwd: project })
  expectLines(await run('node', [join(project, 'out/main.js')], { cwd: project }), spec.expectOutput)
}

const readSpec = (scenario) => JSON.parse(readFileSync(join(scenariosDir, scenario, 'scenario.json'), 'utf8'))

// ---- tarball scenarios -----------------------------------------------------------------------------------------

/** A plain JavaScript program (a host whose types are not ours to check), run as it is. */
async function runProgram(project, scenario, spec) {
  cpSync(join(scenariosDir, scenario, spec.program), join(project, spec.program))
  expectLines(await run('node', [join(project, spec.program)], { cwd: project }), spec.expectOutput)
}

function expectLines(output, lines) {
  for (const line of lines) {
    if (!output.includes(line)) throw new Error(`output lacks ${JSON.stringify(line)}:\n${output}`)
  }
}

async function tarballScenario(scenario, tarballs) {
  const spec = readSpec(scenario)
  const missing = spec.install.filter((name) => !tarballs.has(name))
  if (missing.length > 0) throw new Error(`not a published package: ${missing.join(', ')}`)
  // Only the named tarballs are dependencies; overrides point every other @dsh package at its tarball too.
  const overrides = Object.fromEntries([...tarballs].map(([name, file]) => [name, `file:${file}`]))
  const dependencies = Object.fromEntries(spec.install.map((name) => [name, overrides[name]]))
  Object.assign(dependencies, spec.registry ?? {})
  dependencies['@types/node'] = rootJson.devDependencies['@types/node']
  const project = scratch(`dsh-consumer-${scenario}-`)
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: `consumer-${scenario}`, private: true, type: 'module', dependencies, overrides }, null, 2),
  )
  await npm(['install', '--ignore-scripts', '--prefer-offline', ...(spec.npmFlags ?? [])], project)
  const installed = expectInstalled(project, spec.expectInstalled)
  if (spec.program === undefined) await typeCheckAndRun(project, scenario, spec)
  else await runProgram(project, scenario, spec)
  return `installed ${installed.join(', ')}`
}

// ---- doc scenarios ---------------------------------------------------------------------------------------------

async function docScenario(doc, tarballs) {
  const blocks = fencedBlocks(readFileSync(join(root, doc), 'utf8'))
  if (!blocks.some((block) => block.attributes.run)) throw new Error(`${doc} has no \`sh run\` block to follow`)
  const project = scratch('dsh-doc-')
  mkdirSync(join(project, 'tarballs'))
  for (const file of tarballs.values()) cpSync(file, join(project, 'tarballs', file.split('/').pop()))
  let stdout
  const counts = { commands: 0, files: 0, lines: 0 }
  for (const block of blocks) {
    const where = `${doc}:${block.line}`
    if (typeof block.attributes.file === 'string') {
      const path = normalize(block.attributes.file)
      if (path.startsWith('..') || path.startsWith('/')) throw new Error(`${where}: file=${path} leaves the project`)
      mkdirSync(dirname(join(project, path)), { recursive: true })
      writeFileSync(join(project, path), `${block.body}\n`)
      counts.files += 1
    } else if (block.attributes.run) {
      try {
        stdout = await run('bash', ['-euo', 'pipefail', '-c', block.body], { cwd: project })
      } catch (error) {
        throw new Error(`${where}: the sh run block failed (${error.message})\n${error.stdout ?? ''}${error.stderr ?? ''}`)
      }
      counts.commands += 1
    } else if (block.attributes.output) {
      if (stdout === undefined) throw new Error(`${where}: an output block before any sh run block`)
      for (const line of block.body.split('\n').map((text) => text.trim()).filter(Boolean)) {
        if (!stdout.includes(line)) throw new Error(`${where}: the last sh run block did not print ${JSON.stringify(line)}:\n${stdout}`)
        counts.lines += 1
      }
    }
  }
  return `${counts.commands} sh run blocks, ${counts.files} files, ${counts.lines} output lines seen`
}

// ---- registry scenarios ----------------------------------------------------------------------------------------

/** A project that gets @dsh from the local registry and everything else from the normal one. */
async function registryConsumer(registry, name, packages, { cordis: withCordis = true } = {}) {
  const project = scratch(`dsh-registry-${name}-`)
  await npm(['init', '-y'], project)
  await npm(['pkg', 'set', 'type=module'], project)
  writeFileSync(join(project, '.npmrc'), `@dsh:registry=${registry.url}\n`)
  // The user's command, as the package READMEs give it.
  await npm(['install', ...packages, ...(withCordis ? [cordis] : [])], project)
  // Every @dsh package must have come from the local registry, by a registry range (not a file: spec).
  const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8'))
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path.includes('node_modules/@dsh/') && !entry.resolved?.startsWith(registry.url)) {
      throw new Error(`${path} resolved to ${entry.resolved}, not the local registry`)
    }
  }
  return project
}

/** Versions by lockfile path: { 'node_modules/@dsh/tool-bash': '0.1.0', … }. */
function lockVersions(project) {
  const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8'))
  return Object.fromEntries(Object.entries(lock.packages).filter(([path]) => path !== '').map(([path, entry]) => [path, entry.version]))
}

async function registryBash(registry) {
  const spec = readSpec('registry-bash')
  const project = await registryConsumer(registry, 'registry-bash', ['@dsh/tool-bash', '@dsh/tools-registry'])
  await npm(['install', '-D', `@types/node@${rootJson.devDependencies['@types/node']}`], project)
  const installed = expectInstalled(project, spec.expectInstalled)
  await typeCheckAndRun(project, 'registry-bash', spec)
  return `npm install @dsh/tool-bash @dsh/tools-registry ${cordis}: ${installed.join(', ')}`
}

/**
 * Runs `work` on every item, two at a time: each item has a scratch project of its own and npm's cache is safe to
 * share, and most of the time is npm and tsc waiting on the disk and the network. Resolves to every item's settled
 * outcome, in the items' order.
 */
async function twoAtATime(items, work) {
  const outcomes = Array.from({ length: items.length })
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const index = next++
      outcomes[index] = (await Promise.allSettled([work(items[index])]))[0]
    }
  }
  await Promise.all([worker(), worker()])
  return outcomes
}

// Each package alone, as its README installs it: npm must find a tree that satisfies every dependency and peer range
// (`npm ls --all` exits non-zero on a missing or invalid one) and the package must load under Node.
async function eachPackage(registry, tarballs) {
  const list = [...tarballs].filter(([name]) => onlyPackages.length === 0 || onlyPackages.includes(name))
  const checkOne = async ([name, tarball]) => {
    const peers = JSON.parse(readFromTarball(tarball, 'package.json')).peerDependencies ?? {}
    const project = await registryConsumer(registry, name.replace('@dsh/', ''), [name], { cordis: 'cordis' in peers })
    await npm(['ls', '--all'], project)
    await run('node', ['--input-type=module', '-e', `await import(${JSON.stringify(name)})`], { cwd: project })
    rmSync(project, { recursive: true, force: true })
  }
  // The first failure is the scenario's.
  const failed = (await twoAtATime(list, checkOne)).find((outcome) => outcome.status === 'rejected')
  if (failed) throw failed.reason
  return `npm install <package> (${cordis} where it is a peer), npm ls --all and import: ${list.map(([name]) => name.replace('@dsh/', '')).join(', ')}`
}

// A changed leaf package is released: an existing consumer's `npm update` must take that one package's new version
// and nothing else (no other @dsh package, no transitive dependency).
async function updateLeaf(registry, tarballs) {
  const leaf = '@dsh/tool-bash'
  const project = await registryConsumer(registry, 'update-leaf', [leaf, '@dsh/tools-registry'])
  const before = lockVersions(project)
  const current = before[`node_modules/${leaf}`]
  const next = current.replace(/\d+$/, (patch) => String(Number(patch) + 1))
  const copy = scratch('dsh-bump-')
  await run('tar', ['-xzf', tarballs.get(leaf), '-C', copy], { cwd: copy })
  const manifestPath = join(copy, 'package/package.json')
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'))
  writeFileSync(manifestPath, JSON.stringify({ ...manifest, version: next }, null, 2))
  await publish(registry, join(copy, 'package'))
  // --prefer-online: the packument npm cached a moment ago lists only the old version.
  await npm(['update', '--ignore-scripts', '--prefer-online'], project)
  const after = lockVersions(project)
  const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .filter((path) => before[path] !== after[path])
    .map((path) => `${path.replace(/^.*node_modules\//, '')} ${before[path] ?? '(none)'} → ${after[path] ?? '(removed)'}`)
  const expected = [`${leaf} ${current} → ${next}`]
  if (JSON.stringify(changed) !== JSON.stringify(expected)) {
    throw new Error(`npm update changed ${JSON.stringify(changed)}, expected exactly ${JSON.stringify(expected)}`)
  }
  return `npm update took ${expected[0]} and nothing else`
}

async function publish(registry, what) {
  const npmrc = join(registry.dir, 'publish.npmrc')
  writeFileSync(npmrc, `//${registry.url.replace(/^http:\/\//, '')}:_authToken=${registry.token}\n`)
  try {
    await run('npm', ['publish', what, '--registry', registry.url, '--userconfig', npmrc, '--ignore-scripts', '--loglevel=error'], { cwd: registry.dir })
  } catch (error) {
    // npm retries a PUT whose answer it did not get; when the first one had landed, the retry is refused as a
    // republish. That is a success exactly when the registry holds this very tarball (same integrity).
    if (!/cannot publish over the previously published versions/i.test(String(error.stderr)) || !what.endsWith('.tgz')) throw error
    if (!(await registryHolds(registry, what))) throw error
  }
}

/** True when the local registry's `dist.integrity` for the tarball's name and version is the tarball's own sha512. */
async function registryHolds(registry, tarball) {
  const manifest = JSON.parse(readFromTarball(tarball, 'package.json') ?? '{}')
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`
  const answer = await fetch(`${registry.url.replace(/\/$/, '')}/${manifest.name.replace('/', '%2f')}`, { headers: { authorization: `Bearer ${registry.token}` } })
  if (!answer.ok) return false
  const packument = await answer.json()
  return packument.versions?.[manifest.version]?.dist?.integrity === integrity
}

// ---- main ------------------------------------------------------------------------------------------------------

const selectors = process.argv.slice(2).filter((arg) => !arg.startsWith('--package='))
const onlyPackages = process.argv.slice(2).filter((arg) => arg.startsWith('--package=')).map((arg) => arg.slice('--package='.length))
const selected = (name) =>
  selectors.length === 0 || selectors.some((selector) => name === selector || name.startsWith(`${selector}:`) || name.endsWith(`:${selector}`) || name.endsWith(`/${selector}`))

const scenarios = [
  ...readdirSync(scenariosDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(scenariosDir, entry.name, 'scenario.json')))
    .map((entry) => ({ name: `tarball:${entry.name}`, run: (tarballs) => tarballScenario(entry.name, tarballs) })),
  ...docScenarios.map((doc) => ({ name: `doc:${doc}`, run: (tarballs) => docScenario(doc, tarballs) })),
  { name: 'registry:registry-bash', registry: true, run: (tarballs, registry) => registryBash(registry) },
  { name: 'registry:each-package', registry: true, run: (tarballs, registry) => eachPackage(registry, tarballs) },
  // Last: it publishes a newer tool-bash, which the scenarios before it must not see.
  { name: 'registry:update-leaf', registry: true, run: (tarballs, registry) => updateLeaf(registry, tarballs) },
].filter(({ name }) => selected(name))

let failures = 0
/** Runs one scenario; resolves to the line to print (a failure is counted and its line goes to stderr). */
async function attempt(scenario, ...args) {
  try {
    return { stream: 'stdout', text: `  ${scenario.name}: ok (${await scenario.run(...args)})` }
  } catch (error) {
    failures += 1
    return { stream: 'stderr', text: `  ${scenario.name}: FAILED\n${error.stdout ?? ''}${error.stderr ?? ''}${error.message}` }
  }
}
const report = ({ stream, text }) => (stream === 'stdout' ? console.log(text) : console.error(text))

/** The scenarios that share nothing run two at a time; their lines are printed in the scenarios' order. */
async function attemptAll(list, ...args) {
  for (const outcome of await twoAtATime(list, (scenario) => attempt(scenario, ...args))) report(outcome.value)
}

try {
  if (scenarios.length === 0) throw new Error(`no scenario matches ${selectors.join(' ')}`)
  const tarballs = packAll({ destination: scratch('dsh-packs-') })
  const unknown = onlyPackages.filter((name) => !tarballs.has(name))
  if (unknown.length > 0) throw new Error(`--package names no published package: ${unknown.join(', ')}`)
  await attemptAll(scenarios.filter(({ registry }) => !registry), tarballs)
  const registryScenarios = scenarios.filter(({ registry }) => registry)
  if (registryScenarios.length > 0) {
    const registry = await startRegistry()
    registryDirs.push(registry.dir)
    cleanups.push(() => registry.stop()) // rejects if the pid is still alive afterwards
    try {
      for (const tarball of tarballs.values()) await publish(registry, tarball)
      console.log(`  published ${tarballs.size} packages to verdaccio at ${registry.url} (pid ${registry.pid})`)
      for (const scenario of registryScenarios) report(await attempt(scenario, tarballs, registry))
    } catch (error) {
      failures += 1
      console.error(`  registry: FAILED\n${error.stdout ?? ''}${error.stderr ?? ''}${error.message}`)
    }
  }
} catch (error) {
  failures += 1
  console.error(`  consumer checks: FAILED\n${error.stdout ?? ''}${error.stderr ?? ''}${error.message}`)
} finally {
  await cleanUp().catch((error) => {
    failures += 1
    console.error(`  clean-up: FAILED\n${error.message}`)
  })
}
if (failures > 0) process.exit(1)
