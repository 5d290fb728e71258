import { spawn } from 'node:child_process'
import { gzipSync } from 'node:zlib'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
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

/** Minified + gzipped size of a package's built entry, bundled with its @dsh dependencies but not cordis. */
async function bundledSize(name: string): Promise<{ raw: number; gzip: number }> {
  const result = await build({
    entryPoints: [fileURLToPath(import.meta.resolve(`@dsh/${name}`))],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'node',
    write: false,
    external: ['cordis', 'diff'],
    logLevel: 'silent',
  })
  const code = result.outputFiles[0]?.contents ?? new Uint8Array()
  return { raw: code.byteLength, gzip: gzipSync(code, { level: 9 }).byteLength }
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
      const { raw, gzip } = await bundledSize(name)
      const budget = budgets[name]
      const verdict = budget === undefined ? '' : `< ${(budget / 1024).toFixed(0)} KB: ${gzip < budget ? 'met' : '**missed**'}`
      rows.push(`| @dsh/${name} | ${(raw / 1024).toFixed(1)} KB | ${(gzip / 1024).toFixed(2)} KB | ${verdict} |`)
    }
    return rows.join('\n')
  },
})
