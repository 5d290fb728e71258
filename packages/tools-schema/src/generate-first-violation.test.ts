// firstViolation of the generated backend: its locating walk stops where the closure walk records its first
// violation, and the node that failed is recorded by its closure check. Runs under both backends (vitest projects);
// each case compares the default backend with the closures and pins the answer itself.
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { backendUnderTest } from './backend-under-test.setup.js'
import { compileParameters, compileValueSchema, valueNode } from './compile-schema.js'
import { compileNode } from './compile-validator.js'
import { valueFor, valueSpec } from './schema-arbitraries.js'
import type { ParameterSchemaSpec, ValueSchemaSpec } from './schema-spec.js'
import { Sink } from './validation-sink.js'

const servers = {
  name: { type: 'string', required: true },
  servers: {
    type: 'array',
    required: true,
    maxItems: 3,
    items: {
      type: 'object',
      additionalProperties: false,
      properties: {
        host: { type: 'string', required: true, minLength: 1 },
        port: { type: 'integer', minimum: 1 },
        tags: { type: 'array', uniqueItems: true, items: { type: 'string' } },
        meta: { type: 'object', additionalProperties: true, properties: {} },
        action: {
          oneOf: [
            { type: 'object', additionalProperties: false, properties: { kind: { type: 'string', const: 'stop', required: true } } },
            { type: 'object', additionalProperties: false, properties: { kind: { type: 'string', const: 'go', required: true }, at: { type: 'integer', required: true } } },
          ],
        },
        extra: { type: 'json' },
      },
    },
  },
} as const satisfies ParameterSchemaSpec

function both(spec: ParameterSchemaSpec) {
  return [compileParameters(spec, { cache: false }), compileParameters(spec, { backend: 'closures', cache: false })] as const
}

describe('firstViolation of the generated backend', () => {
  test('the default backend is the one under test', () => {
    expect(compileParameters(servers, { cache: false }).backend).toBe(backendUnderTest)
  })

  test.each([
    ['a missing required property two levels down', { name: 'n', servers: [{ host: 'a' }, {}] }, 'servers[1].host', 'required', 'is required but missing'],
    ['an undeclared key in a closed object', { name: 'n', servers: [{ host: 'a', hots: 1 }] }, 'servers[0].hots', 'additionalProperties', 'is not an allowed property (allowed: host, port, tags, meta, action, extra)'],
    ['a value constraint of a scalar', { name: 'n', servers: [{ host: 'a', port: 0 }] }, 'servers[0].port', 'minimum', 'must be at least 1, got 0'],
    ['a bound of an array', { name: 'n', servers: [{ host: 'a' }, { host: 'b' }, { host: 'c' }, { host: 'd' }] }, 'servers', 'maxItems', 'must have at most 3 items, got 4'],
    ['a duplicate among valid elements', { name: 'n', servers: [{ host: 'a', tags: ['x', 'y', 'x'] }] }, 'servers[0].tags', 'uniqueItems', 'must not contain duplicate items: [2] equals [0]'],
    ['a non-JSON extra key of an open object, deep inside it', { name: 'n', servers: [{ host: 'a', meta: { deep: [1, Number.NaN] } }] }, 'servers[0].meta.deep[1]', 'json', undefined],
    ['a oneOf that no branch matches', { name: 'n', servers: [{ host: 'a', action: { kind: 'go' } }] }, 'servers[0].action', 'oneOf', undefined],
    ['two violations: the one at the earlier key, not the earlier declared', { name: 'n', servers: [{ port: 0, host: '' }] }, 'servers[0].port', 'minimum', 'must be at least 1, got 0'],
    ['an undeclared key before a violation', { name: 'n', servers: [{ hots: 1, host: 'a', port: 0 }] }, 'servers[0].hots', 'additionalProperties', undefined],
    ['a violation before an undeclared key', { name: 'n', servers: [{ port: 0, hots: 1, host: 'a' }] }, 'servers[0].port', 'minimum', undefined],
    ['a missing required property after a violation', { name: 'n', servers: [{ tags: ['x', 'x'] }] }, 'servers[0].tags', 'uniqueItems', undefined],
    ['a non-JSON extra at the root before a declared violation', { extra: Number.NaN, servers: 'none', name: 'n' }, 'extra', 'json', undefined],
    ['the arguments themselves', 'name=n', '', 'type', 'the arguments must be a JSON object; they arrived as a string ("name=n")'],
    ['an element that is not an object', { name: 'n', servers: [{ host: 'a' }, 7] }, 'servers[1]', 'type', 'expected an object, got the number 7'],
  ])('%s', (_, value, path, keyword, message) => {
    const [validator, closures] = both(servers)
    const first = validator.firstViolation(value)
    expect(first).toEqual(closures.firstViolation(value))
    expect(first?.path).toBe(path)
    expect(first?.keyword).toBe(keyword)
    if (message !== undefined) expect(first?.message).toBe(message)
    // validate() lists the same one first (a oneOf summary there leaves room for the closest branch's problems).
    const result = validator.validate(value)
    if (keyword !== 'oneOf') expect(result.ok ? undefined : result.violations[0]).toEqual(first)
  })

  test('a valid value has none', () => {
    const [validator] = both(servers)
    expect(validator.firstViolation({ name: 'n', servers: [{ host: 'a', port: 1, tags: ['x'], action: { kind: 'go', at: 3 }, extra: { any: [null] } }] })).toBeUndefined()
  })

  test('hostile property names reach the path as data, never as code', () => {
    const names = ['"]);process.exit(1);//', 'constructor', '__proto__', 'toString', 'a\u2028b\u2029c', '`${x}`', '\\', '']
    for (const name of names) {
      const spec = { [name]: { type: 'object', additionalProperties: false, properties: { [name]: { type: 'integer', required: true } } } } as ParameterSchemaSpec
      const [validator, closures] = both(spec)
      const value = { [name]: { [name]: 'x' } }
      const first = validator.firstViolation(value)
      expect(first).toEqual(closures.firstViolation(value))
      expect(first?.segments).toEqual([name, name])
      expect(first?.message).toBe('expected an integer, got the string "x"')
    }
  })

  test('a getter that validates the same value again (re-entrant) gets its own answer, and so does the outer call', () => {
    const [validator] = both(servers)
    let inner: unknown
    const value = {
      name: 'n',
      get servers(): unknown {
        if (inner === undefined) inner = validator.firstViolation({ name: 'n', servers: [{ host: 'a', port: 'p' }] })
        return [{ host: 'b' }, { host: 2 }]
      },
    }
    expect(validator.firstViolation(value)).toEqual({ path: 'servers[1].host', segments: ['servers', 1, 'host'], keyword: 'type', message: 'expected a string, got the number 2' })
    expect(inner).toEqual({ path: 'servers[0].port', segments: ['servers', 0, 'port'], keyword: 'type', message: 'expected an integer, got the string "p"' })
  })

  test('a throwing getter after an earlier violation: the earlier violation, as the closures report it', () => {
    const [validator, closures] = both(servers)
    const hostile = () => ({
      name: 'n',
      servers: [
        {
          port: 0,
          get host(): unknown {
            throw new Error('no host')
          },
        },
      ],
    })
    const expected = { path: 'servers[0].port', segments: ['servers', 0, 'port'], keyword: 'minimum', message: 'must be at least 1, got 0' }
    expect(closures.firstViolation(hostile())).toEqual(expected)
    expect(validator.firstViolation(hostile())).toEqual(expected)
    // The getter's key first: reading it is the first violation (where the closures say it threw).
    const throwing = Object.defineProperty({}, 'host', {
      enumerable: true,
      get: () => {
        throw new Error('no host')
      },
    })
    const throwingFirst = { name: 'n', servers: [Object.assign(throwing, { port: 0 })] }
    expect(validator.firstViolation(throwingFirst)).toEqual(closures.firstViolation(throwingFirst))
    expect(validator.firstViolation(throwingFirst)?.keyword).toBe('unreadable')
  })

  test('a failing scalar is described as it was read, not read again', () => {
    const [validator, closures] = both(servers)
    const flaky = () => {
      let reads = 0
      return {
        name: 'n',
        servers: [
          {
            get host(): unknown {
              reads++
              return reads === 1 ? undefined : 'ok'
            },
          },
        ],
      }
    }
    const expected = { path: 'servers[0].host', segments: ['servers', 0, 'host'], keyword: 'type', message: 'expected a string, got undefined (not JSON)' }
    expect(validator.firstViolation(flaky())).toEqual(expected)
    expect(closures.firstViolation(flaky())).toEqual(expected)
  })

  test('firstViolation is the first violation of a full walk, for every schema and value (property)', () => {
    fc.assert(
      fc.property(
        valueSpec.chain((spec) => fc.tuple(fc.constant(spec), fc.array(valueFor(spec), { minLength: 4, maxLength: 4 }))),
        ([spec, values]) => {
          const validator = compileValueSchema(spec as unknown as ValueSchemaSpec, { cache: false })
          const check = compileNode(valueNode(spec))
          for (const value of values) {
            const sink = new Sink(1, 1)
            const expected = check(value, sink) ? undefined : sink.violations()[0]
            expect(validator.firstViolation(value)).toEqual(expected)
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  test('a violation is a fresh plain object that reads and serializes like the closure backend\'s', () => {
    const [validator, closures] = both(servers)
    const value = { name: 'n', servers: [{ host: 'a' }, { host: 'b', port: 'eighty' }] }
    const first = validator.firstViolation(value)
    const expected = closures.firstViolation(value)
    expect(first).toEqual({ path: 'servers[1].port', segments: ['servers', 1, 'port'], keyword: 'type', message: 'expected an integer, got the string "eighty"' })
    expect(JSON.stringify(first)).toBe(JSON.stringify(expected))
    expect(Object.getPrototypeOf(first)).toBe(Object.prototype)
    expect(Object.keys(first as object)).toEqual(['path', 'segments', 'keyword', 'message'])
    expect(Object.isFrozen(first)).toBe(Object.isFrozen(expected))
    for (const key of ['path', 'segments', 'keyword', 'message']) {
      expect(Object.getOwnPropertyDescriptor(first, key)).toEqual(Object.getOwnPropertyDescriptor(expected, key))
    }
    // Read twice, the same text; the next call builds a new violation, untouched by changes to this one.
    if (first === undefined) throw new Error('a violation was expected')
    expect(first.message).toBe(first.message)
    ;(first.segments as unknown[]).push('changed')
    const again = validator.firstViolation(value)
    expect(again).not.toBe(first)
    expect(again?.segments).toEqual(['servers', 1, 'port'])
  })

  test.each([
    ['an undeclared key', { type: 'object', additionalProperties: false, properties: {} }, { odd: 1 }, 'odd'],
    ['an undeclared key with an odd name', { type: 'object', additionalProperties: false, properties: {} }, { 'a b': 1 }, '["a b"]'],
    ['a missing required property', { type: 'object', additionalProperties: false, properties: { a: { type: 'string', required: true } } }, {}, 'a'],
    ['a non-JSON undeclared value', { type: 'object', additionalProperties: true, properties: {} }, { a: [Number.NaN] }, 'a[0]'],
    ['a non-JSON value of a json root', { type: 'json' }, { a: [1, undefined] }, 'a[1]'],
    ['an element of a root array', { type: 'array', items: { type: 'object', additionalProperties: false, properties: { a: { type: 'integer' } } } }, [{ a: 'x' }], '[0].a'],
  ])('the path of %s at the root of a value schema starts without a dot', (_, spec, value, path) => {
    const validator = compileValueSchema(spec as unknown as ValueSchemaSpec, { cache: false })
    const closures = compileValueSchema(spec as unknown as ValueSchemaSpec, { cache: false, backend: 'closures' })
    expect(validator.firstViolation(value)?.path).toBe(path)
    expect(validator.firstViolation(value)).toEqual(closures.firstViolation(value))
  })

  // Objects and arrays are walked inline, inside the function of the node above them, down to eight levels and up
  // to 32 walks per function; the rest are calls. Each kind of violation, found inline at depth and past the depth
  // (where a call's answer gets the path above it), carries its whole path.
  const leafSpec = {
    type: 'object',
    additionalProperties: false,
    properties: {
      n: { type: 'integer', required: true, minimum: 1 },
      tags: { type: 'array', uniqueItems: true, maxItems: 2, items: { type: 'string' } },
      open: { type: 'object', additionalProperties: true, properties: {} },
      any: { type: 'json' },
      pick: { oneOf: [{ type: 'object', additionalProperties: false, properties: { kind: { type: 'string', const: 'a', required: true } } }, { type: 'string' }] },
      act: {
        oneOf: [
          { type: 'object', additionalProperties: false, properties: { kind: { type: 'string', const: 'stop', required: true } } },
          { type: 'object', additionalProperties: false, properties: { kind: { type: 'string', const: 'go', required: true }, at: { type: 'array', required: true, items: { type: 'integer' } } } },
        ],
      },
    },
  } as const satisfies ValueSchemaSpec
  function nestedIn(levels: number): ValueSchemaSpec {
    let spec: ValueSchemaSpec = leafSpec
    for (let level = 0; level < levels; level++) spec = { type: 'object', additionalProperties: false, properties: { next: { type: 'array', required: true, items: spec } } }
    return spec
  }
  /** `leaf` at the end of `next[1]` links, beside a valid sibling at each level. */
  function valueIn(levels: number, leaf: unknown): unknown {
    let value = leaf
    let sibling: unknown = { n: 1 }
    for (let level = 0; level < levels; level++) {
      value = { next: [sibling, value] }
      sibling = { next: [sibling] }
    }
    return value
  }
  const throwing = (name: string, base: object = { n: 1 }) =>
    Object.defineProperty(base, name, {
      enumerable: true,
      get: () => {
        throw new Error(`no ${name}`)
      },
    })
  const leafCases: [string, unknown, string, string][] = [
    ['a scalar', { n: 0 }, '.n', 'minimum'],
    ['a missing property', {}, '.n', 'required'],
    ['an undeclared key', { n: 1, 'odd key': 1 }, '["odd key"]', 'additionalProperties'],
    ['an array length', { n: 1, tags: ['a', 'b', 'c'] }, '.tags', 'maxItems'],
    ['a duplicate', { n: 1, tags: ['a', 'a'] }, '.tags', 'uniqueItems'],
    ['an element', { n: 1, tags: ['a', 2] }, '.tags[1]', 'type'],
    ['a non-JSON undeclared value, with the path inside it', { n: 1, open: { a: [1, Number.NaN] } }, '.open.a[1]', 'json'],
    ['a non-JSON json value, with the path inside it', { n: 1, any: { b: [undefined] } }, '.any.b[0]', 'json'],
    ['a oneOf', { n: 1, pick: { kind: 'b' } }, '.pick', 'oneOf'],
    ['a tagged oneOf whose branch fails', { n: 1, act: { kind: 'go', at: [1, 'x'] } }, '.act', 'oneOf'],
    ['a tagged oneOf whose tag is unknown', { n: 1, act: { kind: 'fly' } }, '.act', 'oneOf'],
    ['a tagged oneOf whose branch throws', { n: 1, act: throwing('at', { kind: 'go' }) }, '.act', 'oneOf'],
    ['a value that is not an object', 'leaf', '', 'type'],
    ['a throwing getter', throwing('n'), '', 'unreadable'],
    ['a throwing getter one level down', { n: 1, open: throwing('x') }, '.open', 'unreadable'],
  ]
  describe.each([1, 3, 9])('inside inline walks and past them (%i levels of arrays of objects)', (levels) => {
    const validator = compileValueSchema(nestedIn(levels), { cache: false })
    const closures = compileValueSchema(nestedIn(levels), { cache: false, backend: 'closures' })
    const above = Array.from({ length: levels }, () => '.next[1]').join('').slice(1)
    test.each(leafCases)('%s', (_, leaf, below, keyword) => {
      const found = validator.firstViolation(valueIn(levels, leaf))
      expect(found).toEqual(closures.firstViolation(valueIn(levels, leaf)))
      expect(found?.path).toBe(above + below)
      expect(found?.keyword).toBe(keyword)
      expect(found?.segments).toEqual([...Array.from({ length: levels }, () => ['next', 1]).flat(), ...(below.match(/[a-z]+|\d+|"[^"]+"/g) ?? []).map((piece) => (/^\d+$/.test(piece) ? Number(piece) : piece.replace(/"/g, '')))])
    })
    test('a tagged oneOf names the closest branch and the path inside it', () => {
      expect(validator.firstViolation(valueIn(levels, { n: 1, act: { kind: 'go', at: [1, 'x'] } }))?.message).toBe(
        'matches none of the 2 allowed shapes; the closest is shape 2 (kind "go"): at[1]: expected an integer, got the string "x"',
      )
      expect(validator.firstViolation(valueIn(levels, { n: 1, act: throwing('at', { kind: 'go' }) }))?.message).toMatch(/^matches none of the 2 allowed shapes; the closest is shape 2 \(kind "go"\): .*no at/)
    })
    test('a throwing array at the level above the leaf', () => {
      const value = valueIn(levels, { n: 1 }) as { next: unknown[] }
      let parent = value
      for (let level = 1; level < levels; level++) parent = parent.next[1] as { next: unknown[] }
      parent.next = new Proxy(parent.next, {
        get(target, key, receiver) {
          if (key === '1') throw new Error('no element')
          return Reflect.get(target, key, receiver) as unknown
        },
      })
      const found = validator.firstViolation(value)
      expect(found).toEqual(closures.firstViolation(value))
      expect(found?.keyword).toBe('unreadable')
      expect(found?.path).toBe(above.slice(0, -3))
    })
  })

  test('a oneOf chosen by its tag names the closest branch and its first problem, as the closures do', () => {
    const spec = {
      edit: {
        required: true,
        oneOf: [
          { type: 'object', additionalProperties: false, properties: { kind: { type: 'string', const: 'insert', required: true }, line: { type: 'integer', required: true } } },
          { type: 'object', additionalProperties: false, properties: { kind: { type: 'string', const: 'delete', required: true }, range: { type: 'array', items: { type: 'integer' } } } },
        ],
      },
    } as const satisfies ParameterSchemaSpec
    const [validator, closures] = both(spec)
    for (const value of [{ edit: { kind: 'insert' } }, { edit: { kind: 'delete', range: [1, 'x'] } }, { edit: { kind: 'move' } }, { edit: { kind: 3 } }, { edit: {} }, { edit: 'insert' }]) {
      expect(validator.firstViolation(value)).toEqual(closures.firstViolation(value))
    }
    expect(validator.firstViolation({ edit: { kind: 'delete', range: [1, 'x'] } })?.message).toBe(
      'matches none of the 2 allowed shapes; the closest is shape 2 (kind "delete"): range[1]: expected an integer, got the string "x"',
    )
    expect(validator.firstViolation({ edit: { kind: 'move' } })?.message).toBe('matches none of the 2 allowed shapes: kind must be one of "insert", "delete", got "move"')
  })
})
