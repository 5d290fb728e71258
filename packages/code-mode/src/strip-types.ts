import { transform } from 'sucrase'
import { CodeSyntaxError } from './code-syntax-error.js'

// The program is the body of an async function (top-level `await` and `return`), so it is stripped inside one. The
// prefix shares the program's first line, which keeps every line number of the output equal to the program's.
const prefix = 'async function __dsh_program__() {'
const suffix = '\n}'

interface SucraseSyntaxError {
  readonly message: string
  readonly loc?: { readonly line: number; readonly column: number }
}

/**
 * Strips TypeScript from a program (type annotations, interfaces, `as`, `satisfies`, generics; enums become plain
 * objects) with sucrase, leaving JavaScript with the same line numbers. Modules are not transformed: the program is
 * the body of an async function, where `await` and `return` work at top level. Throws a {@link CodeSyntaxError}
 * (code `CODE_SYNTAX`, with the line and column in the program) when the program does not parse.
 */
export function stripTypes(source: string): string {
  let code: string
  try {
    code = transform(prefix + source + suffix, { transforms: ['typescript'], disableESTransforms: true }).code
  } catch (error) {
    throw syntaxError(error)
  }
  if (!code.startsWith(prefix) || !code.endsWith(suffix)) {
    throw new CodeSyntaxError('SyntaxError: the program is not the body of a function', { line: 1, column: 1 })
  }
  return code.slice(prefix.length, code.length - suffix.length)
}

function syntaxError(error: unknown): CodeSyntaxError {
  const { message, loc } = error as SucraseSyntaxError
  // sucrase's columns count from 1; the first line starts after the prefix.
  const line = loc?.line ?? 1
  const column = Math.max(1, (loc?.column ?? 1) - (line === 1 ? prefix.length : 0))
  const detail = typeof message === 'string' ? message.replace(/\s*\(\d+:\d+\)$/, '') : 'the program does not parse'
  return new CodeSyntaxError(`SyntaxError: ${detail}`, { line, column }, { cause: error })
}
