import { describe, expect, it } from 'vitest'
import { CODE_ERROR_CODES } from './code-error-codes.js'
import { CodeSyntaxError } from './code-syntax-error.js'
import { stripTypes } from './strip-types.js'

function syntaxErrorOf(source: string): CodeSyntaxError {
  try {
    stripTypes(source)
  } catch (error) {
    if (CodeSyntaxError.isInstance(error)) return error
    throw error
  }
  throw new Error('stripTypes did not throw')
}

describe('stripTypes', () => {
  it('strips annotations, interfaces, type aliases, as, satisfies and generics, keeping top-level await and return', () => {
    const source = [
      'interface Row { id: number; name: string }',
      'type Rows = Row[]',
      'const rows: Rows = (await tools.list({ limit: 10 })) as Rows',
      'function first<T>(items: T[]): T | undefined { return items[0] }',
      'if (rows.length === 0) return null satisfies null',
      'return first<Row>(rows)!.name',
    ].join('\n')
    const code = stripTypes(source)
    expect(code).not.toMatch(/interface|type Rows|: Rows|as Rows|satisfies|<T>|<Row>|: T\b/)
    expect(code).toContain('await tools.list({ limit: 10 })')
    expect(code).toContain('return first(rows).name')
    // the same line numbers as the program
    expect(code.split('\n')).toHaveLength(6)
    expect(code.split('\n')[5]).toContain('return first(rows)')
  })

  it('turns an enum into a plain object and leaves plain JavaScript as it is', () => {
    expect(stripTypes('enum Color { Red, Green }\nreturn Color.Green')).toContain('Color[Color["Green"] = Green] = "Green"')
    const plain = 'const a = [1, 2]?.map((x) => x ** 2) ?? []\nreturn { a, b: `${a.length}` }'
    expect(stripTypes(plain)).toBe(plain)
  })

  it('throws CODE_SYNTAX with the line and column in the program', () => {
    const first = syntaxErrorOf('const x = ;')
    expect(first.code).toBe(CODE_ERROR_CODES.SYNTAX)
    expect(first.name).toBe('CodeSyntaxError')
    expect([first.line, first.column]).toEqual([1, 11])
    expect(first.message).toBe('SyntaxError: Unexpected token (line 1, column 11)')

    const second = syntaxErrorOf('let a = 1\nlet b: = 2')
    expect([second.line, second.column]).toEqual([2, 8])
  })

  it('refuses JSX: programs are TypeScript, not TSX', () => {
    expect(syntaxErrorOf('return <div />').code).toBe(CODE_ERROR_CODES.SYNTAX)
  })
})
