// The type errors a misuse of the DSL gives name the problem. Type tests (`*.test-d.ts`) can only say that a line
// fails to compile; these compile snippets with the TypeScript compiler and pin the words of the error itself.
import { join } from 'node:path'
import ts from 'typescript'
import { describe, expect, test } from 'vitest'

const source = import.meta.dirname
const snippets = {
  nullable: `defineParameters({ a: { type: 'string', nullable: true } })`,
  anyOf: `defineValueSchema({ anyOf: [{ type: 'string' }, { type: 'null' }] })`,
  format: `defineParameters({ a: { type: 'string', format: 'uri' } })`,
  misplacedMinimum: `defineParameters({ a: { type: 'string', minimum: 1 } })`,
  misplacedMinLength: `defineValueSchema({ type: 'integer', minLength: 1 })`,
  rawJsonSchema: `defineParameters({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] })`,
  fine: `defineParameters({ path: { type: 'string', required: true, minLength: 1 }, n: { type: 'integer', minimum: 0 } })`,
} as const
type Snippet = keyof typeof snippets

/** Every snippet's error messages (flattened message chains), from one program. */
function diagnose(): Record<Snippet, string> {
  const config = ts.getParsedCommandLineOfConfigFile(join(source, '../tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })
  if (config === undefined) throw new Error('tsconfig.json could not be read')
  const options = { ...config.options, noEmit: true, emitDeclarationOnly: false, composite: false, declaration: false, declarationMap: false, sourceMap: false }
  const files = new Map(
    Object.entries(snippets).map(([name, code]) => [
      join(source, `__type-error-${name}.ts`),
      `import { defineParameters, defineValueSchema } from './index.js'\nexport const value = ${code}\n`,
    ]),
  )
  const host = ts.createCompilerHost(options)
  const getSourceFile = host.getSourceFile.bind(host)
  host.getSourceFile = (fileName, language, onError, create) => {
    const text = files.get(fileName)
    return text === undefined ? getSourceFile(fileName, language, onError, create) : ts.createSourceFile(fileName, text, language)
  }
  const fileExists = host.fileExists.bind(host)
  host.fileExists = (fileName) => files.has(fileName) || fileExists(fileName)
  const program = ts.createProgram([...files.keys()], options, host)
  const messages = {} as Record<Snippet, string>
  for (const name of Object.keys(snippets) as Snippet[]) {
    const file = program.getSourceFile(join(source, `__type-error-${name}.ts`))
    messages[name] = ts
      .getPreEmitDiagnostics(program, file)
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
      .join('\n')
  }
  return messages
}

describe('type errors say what is wrong', () => {
  const messages = diagnose()

  test('an unsupported keyword names itself and the way out', () => {
    expect(messages.nullable).toContain(`Type 'true' is not assignable to type '"\\"nullable\\" is not supported: use oneOf with a { type: 'null' } branch"'`)
    expect(messages.anyOf).toContain('"anyOf\\" is not supported: use oneOf with branches that cannot overlap')
    expect(messages.format).toContain('"format\\" is not supported: formats are not checked; use pattern, or check the value in code after validation')
  })

  test('a misplaced keyword says where it belongs', () => {
    expect(messages.misplacedMinimum).toContain(`Type 'number' is not assignable to type '"\\"minimum\\" only applies to types \\"number\\" and \\"integer\\""'`)
    expect(messages.misplacedMinLength).toContain('"minLength\\" only applies to type \\"string\\"')
  })

  test('a raw JSON Schema passed as a parameter map says so', () => {
    expect(messages.rawJsonSchema).toContain('a parameter map names each property ({ path: { type: \\"string\\", required: true } }), it is not a JSON Schema')
  })

  test('a correct spec has no error (the snippets compile against the real types)', () => {
    expect(messages.fine).toBe('')
  })
}, 120_000)
