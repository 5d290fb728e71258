// Module hooks for the tests' child hosts (plain `node` processes, no vitest): they import this package's TypeScript
// sources directly. A relative `./x.js` import made by a `.ts` module loads `./x.ts` when that file exists, and a
// `.ts` module is compiled by the workspace's TypeScript on the fly (types erased, nothing checked). Everything else
// (`cordis`, `@dsh/*`, the MCP SDK) resolves as it does for the package.
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const relativeJs = /^\.\.?\/.*\.js$/

export async function resolve(specifier, context, nextResolve) {
  const parent = context.parentURL
  if (parent?.endsWith('.ts') === true && relativeJs.test(specifier)) {
    const source = new URL(`${specifier.slice(0, -'.js'.length)}.ts`, parent)
    if (existsSync(source)) return { url: source.href, shortCircuit: true }
  }
  return nextResolve(specifier, context)
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context)
  const fileName = fileURLToPath(url)
  const { outputText } = ts.transpileModule(await readFile(fileName, 'utf8'), {
    fileName,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
  })
  return { format: 'module', source: outputText, shortCircuit: true }
}
