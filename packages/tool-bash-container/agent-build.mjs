// Bundles the in-container agent (src/agent/agent-main.ts, with tool-bash's local executor and cordis) into one
// CommonJS file that the executor sends to node in the container. Used by the build (tsup's onSuccess) and by the
// tests (vitest's global setup), which run from src.
import { build } from 'esbuild'

/** Writes the bundle to `outfile`. */
export async function bundleAgent(outfile) {
  await build({
    entryPoints: [new URL('./src/agent/agent-main.ts', import.meta.url).pathname],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    minify: true,
    legalComments: 'none',
    logLevel: 'error',
  })
}
