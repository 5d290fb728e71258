import { spawn } from 'node:child_process'
import { gzipSync } from 'node:zlib'
import { fileURLToPath } from 'node:url'
import { build, type BuildOptions, type Plugin } from 'esbuild'
import { defineSuite } from '../harness.js'

const packages = ['tools-core', 'tools-schema', 'tools-registry', 'tools-presentation', 'timeout-policy', 'tool-bash', 'tools-testing']
const budgets: Record<string, number> = { 'tools-core': 2 * 1024, 'tools-schema': 10 * 1024 }

function runNode(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: 'ignore', cwd: import.meta.dirname })
    child.on('error', reject)
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`node exited ${code}`))))
  })
}

const bundleOptions = { bundle: true, minify: true, format: 'esm', platform: 'node', write: false, external: ['cordis', 'diff'], logLevel: 'silent' } satisfies BuildOptions

/** Minified and minified + gzipped size of an entry, bundled with the @dsh packages it uses but not cordis. */
async function sizeOf(entry: string, plugins: Plugin[] = []): Promise<{ raw: number; gzip: number; modules: [string, number][] }> {
  const result = await build({ ...bundleOptions, entryPoints: [entry], plugins, metafile: true })
  const code = result.outputFiles[0]?.contents ?? new Uint8Array()
  // Each module's minified bytes in the bundle, largest first.
  const inputs = Object.values(result.metafile?.outputs ?? {})[0]?.inputs ?? {}
  const modules = Object.entries(inputs)
    .map(([path, { bytesInOutput }]): [string, number] => [path.replace(/^(\.\.\/)+packages\//, ''), bytesInOutput])
    .sort((a, b) => b[1] - a[1])
  return { raw: code.byteLength, gzip: gzipSync(code, { level: 9 }).byteLength, modules }
}

/**
 * tools-schema bundled from its source twice: as published, and with the generated backend left out (the module
 * that writes the validators' source replaced by one that never generates, as on a host that forbids
 * `new Function`), so that the difference is what the code generator adds.
 */
async function schemaBackendSizes(): Promise<Record<'both' | 'closures', Awaited<ReturnType<typeof sizeOf>>>> {
  const entry = fileURLToPath(new URL('../../packages/tools-schema/src/index.ts', import.meta.url))
  let replaced = false
  const closuresOnly: Plugin = {
    name: 'closures-only',
    setup(plugin) {
      plugin.onResolve({ filter: /^\.\/generate-first-violation\.js$/ }, () => {
        replaced = true
        return { path: 'generate-first-violation', namespace: 'closures-only' }
      })
      plugin.onLoad({ filter: /.*/, namespace: 'closures-only' }, () => ({ contents: 'export function generateValidator() { return undefined }', loader: 'js' }))
    },
  }
  const sizes = { both: await sizeOf(entry), closures: await sizeOf(entry, [closuresOnly]) }
  // A renamed module would leave the generator in and report it as free.
  if (!replaced) throw new Error('footprint: tools-schema no longer imports ./generate-first-violation.js; update the closures-only bundle')
  return sizes
}

const coldImport = "await import('@dsh/tools-schema'); await import('@dsh/tools-registry')"
const slow = { min_samples: 20, max_samples: 40, min_cpu_time: 0 }

export default defineSuite({
  name: 'footprint',
  description:
    'Cold start: a fresh `node` that imports tools-schema and tools-registry (with cordis) against `node -e 0`; target: adds less than 20 ms. Bundle sizes: each package\'s built entry bundled with the @dsh packages it uses (cordis and diff left out), minified with esbuild and gzipped; budgets: tools-core < 2 KB, tools-schema < 10 KB.',
  groups: () => [
    {
      title: 'cold start',
      baseline: 'node -e 0',
      options: slow,
      cases: {
        'node -e 0': () => runNode(['-e', '0']),
        'node + import tools-schema, tools-registry': () => runNode(['--input-type=module', '-e', coldImport]),
      },
    },
  ],
  async notes() {
    const rows = ['| package | minified | minified + gzip | budget |', '| --- | ---: | ---: | --- |']
    for (const name of packages) {
      const { raw, gzip } = await sizeOf(fileURLToPath(import.meta.resolve(`@dsh/${name}`)))
      const budget = budgets[name]
      const verdict = budget === undefined ? '' : `< ${(budget / 1024).toFixed(0)} KB: ${gzip < budget ? 'met' : '**missed**'}`
      rows.push(`| @dsh/${name} | ${(raw / 1024).toFixed(1)} KB | ${(gzip / 1024).toFixed(2)} KB | ${verdict} |`)
    }
    const kb = (bytes: number) => `${(bytes / 1024).toFixed(bytes < 10240 ? 2 : 1)} KB`
    const { both, closures } = await schemaBackendSizes()
    rows.push(
      '',
      'tools-schema by backend, bundled from its source (as above, with its tools-core code):',
      '',
      '| bundle | minified | minified + gzip |',
      '| --- | ---: | ---: |',
      `| both backends (as published) | ${kb(both.raw)} | ${kb(both.gzip)} |`,
      `| closure backend only (the generator left out) | ${kb(closures.raw)} | ${kb(closures.gzip)} |`,
      `| what the code generator adds | ${kb(both.raw - closures.raw)} | ${kb(both.gzip - closures.gzip)} |`,
      '',
      `Where tools-schema's minified bytes go (its largest modules): ${both.modules
        .slice(0, 8)
        .map(([path, bytes]) => `${path.replace(/^tools-schema\/src\//, '')} ${kb(bytes)}`)
        .join(', ')}; ${both.modules.length - 8} smaller modules ${kb(both.modules.slice(8).reduce((sum, [, bytes]) => sum + bytes, 0))}.`,
    )
    return rows.join('\n')
  },
})
