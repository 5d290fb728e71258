// Test support (never built or published): module hooks that let a child Node process run this package's TypeScript
// sources as they are, transpiled on load by the workspace's TypeScript. A test that needs a process of its own (one
// holding descriptors a child would inherit) starts `node` with a script that registers these hooks.
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const ts = createRequire(import.meta.url)('typescript')

/** `./x.js` imported by a `.ts` file names `./x.ts` (the sources import what the build will emit). */
export async function resolve(specifier, context, next) {
  if (/^\.\.?\//.test(specifier) && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
    const url = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL)
    if (existsSync(fileURLToPath(url))) return { url: url.href, shortCircuit: true }
  }
  return next(specifier, context)
}

export async function load(url, context, next) {
  if (!url.endsWith('.ts')) return next(url, context)
  const source = await readFile(fileURLToPath(url), 'utf8')
  const { outputText } = ts.transpileModule(source, {
    fileName: fileURLToPath(url),
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, isolatedModules: true },
  })
  return { format: 'module', source: outputText, shortCircuit: true }
}
