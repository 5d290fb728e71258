// Test support (never built or published): module hooks that let the worker thread run this package's TypeScript
// sources as they are, when the runtime itself runs from sources (vitest). sucrase, a dependency of the package,
// strips the types; `./x.js` imported by a `.ts` file names `./x.ts` (the sources import what the build emits).
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { register } from 'node:module'
import { fileURLToPath } from 'node:url'

export async function resolve(specifier, context, next) {
  if (/^\.\.?\//.test(specifier) && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
    const url = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL)
    if (existsSync(fileURLToPath(url))) return { url: url.href, shortCircuit: true }
  }
  return next(specifier, context)
}

export async function load(url, context, next) {
  if (!url.endsWith('.ts')) return next(url, context)
  const { transform } = await import('sucrase')
  const source = await readFile(fileURLToPath(url), 'utf8')
  const { code } = transform(source, { transforms: ['typescript'], disableESTransforms: true, filePath: fileURLToPath(url) })
  return { format: 'module', source: code, shortCircuit: true }
}

// Loaded with `--import` in the worker, it registers itself (with a query, so the hooks' copy does not register again).
if (new URL(import.meta.url).search !== '?hooks') register(new URL('?hooks', import.meta.url))
