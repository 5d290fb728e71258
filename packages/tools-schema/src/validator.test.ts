import { runInNewContext } from 'node:vm'
import { formatJsonPath, MAX_JSON_DEPTH } from '@dsh/tools-core'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { compileParameters, compileValueSchema, parameterNode, validateArgs, validateValue } from './compile-schema.js'
import { compileArguments } from './compile-validator.js'
import { Sink } from './validation-sink.js'
import { defineParameters, defineValueSchema } from './define-parameters.js'
import { JsonSchemaError } from './json-schema-error.js'
import type { ParameterSchemaSpec, ValueSchemaSpec } from './schema-spec.js'
import { DEFAULT_MAX_VIOLATIONS } from './validator.js'
import { formatViolation, formatViolations, type Violation } from './violation.js'

function lines(violations: readonly Violation[]): string[] {
  return violations.map(formatViolation)
}

/** Every violation of `value` as `path: message` lines ([] when valid). */
function check(spec: ParameterSchemaSpec, value: unknown): string[] {
  const result = validateArgs(spec, value)
  return result.ok ? [] : lines(result.violations)
}

function checkValue(spec: ValueSchemaSpec, value: unknown): string[] {
  const result = validateValue(spec, value)
  return result.ok ? [] : lines(result.violations)
}

const server = defineParameters({
  name: { type: 'string', required: true },
  servers: {
    type: 'array',
    required: true,
    items: {
      type: 'object',
      additionalProperties: false,
      properties: {
        host: { type: 'string', required: true },
        port: { type: 'integer' },
        tls: { type: 'boolean' },
      },
    },
  },
  mode: { type: 'string', enum: ['fast', 'safe'] },
  labels: { type: 'object', additionalProperties: true },
})

describe('valid values', () => {
  test('each node type accepts its values', () => {
    expect(checkValue({ type: 'string' }, '')).toEqual([])
    expect(checkValue({ type: 'number' }, 1.5)).toEqual([])
    expect(checkValue({ type: 'number' }, -1e308)).toEqual([])
    expect(checkValue({ type: 'integer' }, 2 ** 60)).toEqual([])
    expect(checkValue({ type: 'integer' }, 1e300)).toEqual([])
    expect(checkValue({ type: 'boolean' }, false)).toEqual([])
    expect(checkValue({ type: 'null' }, null)).toEqual([])
    expect(checkValue({ type: 'json' }, { a: [1, 'x', null, { b: false }] })).toEqual([])
    expect(checkValue({ type: 'array' }, [1, 'two', [3]])).toEqual([])
    expect(checkValue({ type: 'object', additionalProperties: true }, { any: { thing: [] } })).toEqual([])
    expect(checkValue({ type: 'object', additionalProperties: false }, {})).toEqual([])
    expect(checkValue({ oneOf: [{ type: 'string' }, { type: 'integer' }] }, 3)).toEqual([])
    expect(checkValue({ type: 'integer', enum: [0, 1] }, 0)).toEqual([])
    expect(checkValue({ type: 'null', const: null }, null)).toEqual([])
  })

  test('the parameter map is an open object: undeclared keys hold any JSON', () => {
    expect(check(server, { name: 'a', servers: [], extra: { deep: [1, 2] } })).toEqual([])
  })

  test('keys in any order, and a value that is a full match', () => {
    const value = { labels: { a: '1' }, mode: 'safe', servers: [{ tls: true, port: 443, host: 'example.org' }], name: 'prod' }
    const result = validateArgs(server, value)
    expect(result.ok).toBe(true)
    if (result.ok) expect(result.value).toBe(value)
  })

  test('null-prototype objects and objects and arrays from another realm', () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { name: 'n', servers: [] })
    expect(check(server, bare)).toEqual([])
    const foreign = runInNewContext('({ name: "n", servers: [{ host: "h" }] })') as unknown
    expect(check(server, foreign)).toEqual([])
  })

  test('own __proto__ and constructor properties are data', () => {
    // A `__proto__` key in an object literal sets the prototype; JSON.parse makes it an own property.
    const spec = defineParameters(
      JSON.parse('{"__proto__": {"type": "string"}, "constructor": {"type": "integer", "required": true}}') as ParameterSchemaSpec,
    )
    expect(check(spec, JSON.parse('{"__proto__": "x", "constructor": 1}'))).toEqual([])
    expect(check(spec, { constructor: 1 })).toEqual([])
    expect(check(spec, {})).toEqual(['constructor: is required but missing'])
    expect(check(spec, JSON.parse('{"__proto__": 5, "constructor": 1}'))).toEqual([
      '__proto__: expected a string, got the number 5',
    ])
  })
})

describe('is() reads a value as the rules say', () => {
  const spec = {
    inner: {
      type: 'object',
      additionalProperties: false,
      properties: { a: { type: 'integer', required: true }, b: { type: 'string' }, ['__proto__']: { type: 'string' } },
    },
  } as const satisfies ParameterSchemaSpec

  test('each declared property is read once, through its getter, whatever the order of the keys', () => {
    const validator = compileParameters(spec, { cache: false })
    const reads: string[] = []
    const inner = {
      get b() {
        reads.push('b')
        return 'x'
      },
      get a() {
        reads.push('a')
        return 1
      },
    }
    expect(validator.is({ inner })).toBe(true)
    expect(reads.sort()).toEqual(['a', 'b'])
  })

  test('a declared property inherited from a polluted prototype is not read, and a required one is missing', () => {
    const validator = compileParameters(spec, { cache: false })
    const polluted = Object.create({ a: 1 }) as Record<string, unknown>
    expect(validator.is({ inner: polluted })).toBe(false)
    Object.prototype['a' as keyof object] = 'not an integer' as never
    try {
      expect(validator.is({ inner: { a: 2 } })).toBe(true)
      expect(validator.is({ inner: { b: 'x' } })).toBe(false)
      expect(validator.firstViolation({ inner: { b: 'x' } })?.path).toBe('inner.a')
    } finally {
      delete (Object.prototype as Record<string, unknown>)['a']
    }
  })

  test('a non-enumerable own property is not there, and an own __proto__ key is data', () => {
    const validator = compileParameters(spec, { cache: false })
    const hidden = Object.defineProperty({}, 'a', { value: 1, enumerable: false })
    expect(validator.is({ inner: hidden })).toBe(false)
    expect(validator.firstViolation({ inner: hidden })).toMatchObject({ path: 'inner.a', keyword: 'required' })
    const own = JSON.parse('{"a": 1, "__proto__": "text"}') as unknown
    expect(validator.is({ inner: own })).toBe(true)
    expect(validator.is({ inner: JSON.parse('{"a": 1, "__proto__": 7}') as unknown })).toBe(false)
  })
})

describe('violations, each with its path', () => {
  test('a required property named "" (which ajv 8 never reports missing)', () => {
    const spec = defineParameters({ '': { type: 'string', required: true } })
    expect(check(spec, {})).toEqual(['[""]: is required but missing'])
    expect(check(spec, { '': 'x' })).toEqual([])
  })

  test('types, required, additionalProperties, enum, in reading order', () => {
    expect(
      check(server, {
        servers: [{ host: 'a' }, { host: 7, port: 1.5, tls: 'yes', user: 'root' }, {}],
        mode: 'turbo',
      }),
    ).toEqual([
      'servers[1].host: expected a string, got the number 7',
      'servers[1].port: expected an integer, got the number 1.5',
      'servers[1].tls: expected a boolean, got the string "yes"',
      'servers[1].user: is not an allowed property (allowed: host, port, tls)',
      'servers[2].host: is required but missing',
      'mode: expected one of "fast", "safe", got "turbo"',
      'name: is required but missing',
    ])
  })

  test('the root of a parameter map: arguments that are not an object are named as such', () => {
    expect(check(server, [])).toEqual(['(root): the arguments must be a JSON object; they arrived as an array'])
    expect(check(server, null)).toEqual(['(root): the arguments must be a JSON object; they arrived as null'])
    expect(check(server, 'x'.repeat(100))).toEqual([
      `(root): the arguments must be a JSON object; they arrived as a string ("${'x'.repeat(37)}…")`,
    ])
    expect(check(server, 42)).toEqual(['(root): the arguments must be a JSON object; they arrived as a number (42)'])
    expect(check(server, true)).toEqual(['(root): the arguments must be a JSON object; they arrived as a boolean (true)'])
    expect(check(server, undefined)).toEqual(['(root): the arguments must be a JSON object; they arrived as undefined (not JSON)'])
    expect(check(server, new Map())).toEqual(['(root): the arguments must be a JSON object; they arrived as a Map (not JSON)'])
  })

  test('regression: arguments a provider left as a JSON string are not reported as "expected an object, got the string"', () => {
    expect(check(server, '{"name":"n","servers":[]}')).toEqual([
      '(root): the arguments must be a JSON object; they arrived as a string ("{\\"name\\":\\"n\\",\\"servers\\":[]}"), which holds JSON ' +
        'object text that was never parsed',
    ])
    expect(check(server, ' [1] ')).toEqual(['(root): the arguments must be a JSON object; they arrived as a string (" [1] ")'])
    expect(check(server, '{not json')).toEqual(['(root): the arguments must be a JSON object; they arrived as a string ("{not json")'])
  })

  test('a nested object and a value schema still say "expected an object"', () => {
    expect(check(server, { name: 'n', servers: ['x'] })).toEqual(['servers[0]: expected an object, got the string "x"'])
    expect(checkValue({ type: 'object', additionalProperties: true }, 'x')).toEqual(['(root): expected an object, got the string "x"'])
  })

  test('const and odd keys in paths', () => {
    const spec = defineParameters({
      'odd key': { type: 'object', additionalProperties: false, properties: { kind: { type: 'string', const: 'a' } } },
    })
    expect(check(spec, { 'odd key': { kind: 'b', 'x-y': 1 } })).toEqual([
      '["odd key"].kind: expected "a", got "b"',
      '["odd key"]["x-y"]: is not an allowed property (allowed: kind)',
    ])
  })

  test('paths are exactly what formatJsonPath gives for the segments', () => {
    const spec = defineValueSchema({ type: 'array', items: { type: 'object', additionalProperties: false } })
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 3 }), (keys) => {
        const value = [{}, Object.fromEntries(keys.filter((key) => key !== '__proto__').map((key) => [key, 1]))]
        const result = validateValue(spec, value)
        if (result.ok) return
        for (const violation of result.violations) expect(violation.path).toBe(formatJsonPath(violation.segments))
      }),
    )
  })

  test('oneOf: none, or more than one, matching', () => {
    const edit = defineValueSchema({
      oneOf: [
        {
          type: 'object',
          additionalProperties: false,
          properties: { kind: { type: 'string', const: 'insert', required: true }, text: { type: 'string', required: true } },
        },
        {
          type: 'object',
          additionalProperties: false,
          properties: { kind: { type: 'string', const: 'delete', required: true }, count: { type: 'integer', required: true } },
        },
      ],
    })
    expect(checkValue(edit, { kind: 'delete', count: 'two' })).toEqual([
      '(root): matches none of the 2 allowed shapes; the closest is shape 2 (kind "delete")',
      'count: expected an integer, got the string "two"',
    ])
    expect(checkValue(edit, { kind: 'insert' })).toEqual([
      '(root): matches none of the 2 allowed shapes; the closest is shape 1 (kind "insert")',
      'text: is required but missing',
    ])
    expect(checkValue(edit, 'insert')).toEqual([
      '(root): matches none of the 2 allowed shapes; the closest is shape 1 (kind "insert")',
      '(root): expected an object, got the string "insert"',
    ])
    expect(compileValueSchema(edit).firstViolation({ kind: 'delete' })?.message).toBe(
      'matches none of the 2 allowed shapes; the closest is shape 2 (kind "delete"): count: is required but missing',
    )
    const overlapping = defineValueSchema({ oneOf: [{ type: 'number' }, { type: 'integer' }, { type: 'string' }] })
    expect(checkValue(overlapping, 3)).toEqual([
      '(root): matches 2 of the 3 allowed shapes (1, 2); it must match exactly one',
    ])
    expect(checkValue(overlapping, 3.5)).toEqual([])
  })

  test('oneOf told apart by a const (or enum) property: only the selected shape is checked and reported', () => {
    const command = defineValueSchema({
      oneOf: [
        { type: 'object', additionalProperties: false, properties: { op: { type: 'string', const: 'run', required: true }, cmd: { type: 'string', required: true } } },
        { type: 'object', additionalProperties: false, properties: { op: { type: 'string', enum: ['stop', 'kill'], required: true }, id: { type: 'integer' } } },
        { type: 'object', additionalProperties: true, properties: { op: { type: 'integer', const: 3 } } },
      ],
    })
    expect(checkValue(command, { op: 'run', cmd: 'ls' })).toEqual([])
    expect(checkValue(command, { op: 'kill', id: 3 })).toEqual([])
    expect(checkValue(command, { op: 3, anything: true })).toEqual([])
    expect(checkValue(command, { op: 'kill', cmd: 'ls' })).toEqual([
      '(root): matches none of the 3 allowed shapes; the closest is shape 2 (an object)',
      'cmd: is not an allowed property (allowed: op, id)',
    ])
    expect(checkValue(command, { op: 'pause' })).toEqual([
      '(root): matches none of the 3 allowed shapes: op must be one of "run", "stop", "kill", 3, got "pause"',
    ])
    expect(checkValue(command, { op: Symbol('run') })).toEqual([
      '(root): matches none of the 3 allowed shapes: op must be one of "run", "stop", "kill", 3, got a symbol (not JSON)',
    ])
    expect(checkValue(command, { op: Number.NaN })).toEqual([
      '(root): matches none of the 3 allowed shapes: op must be one of "run", "stop", "kill", 3, got NaN (not a JSON number)',
    ])
    // Without the property, every shape is tried (the third one does not require it).
    expect(checkValue(command, { other: 1 })).toEqual([])
    const hostile = {
      get op(): string {
        throw new Error('tag')
      },
    }
    expect(compileValueSchema(command).is(hostile)).toBe(false)
    expect(checkValue(command, hostile)[1]).toBe('(root): reading the value threw: tag')
  })

  test('a oneOf deep inside gets the full path', () => {
    const spec = defineParameters({
      items: { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'null' }] } },
    })
    expect(check(spec, { items: ['a', null, 3] })).toEqual([
      'items[2]: matches none of the 2 allowed shapes; the closest is shape 1 (a string)',
      'items[2]: expected a string, got the number 3',
    ])
  })
})

describe('a cap on listed violations, and a count of the rest', () => {
  const numbers = defineValueSchema({ type: 'array', items: { type: 'number' } })
  const bad = Array.from({ length: 30 }, (_, index) => `n${index}`)

  test(`at most ${DEFAULT_MAX_VIOLATIONS} by default`, () => {
    const result = validateValue(numbers, bad)
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.violations).toHaveLength(DEFAULT_MAX_VIOLATIONS)
    expect(result.omitted).toBe(30 - DEFAULT_MAX_VIOLATIONS)
    expect(result.violations[19]?.path).toBe('[19]')
    expect(formatViolations(result.violations, result.omitted).split('\n').at(-1)).toBe('- … and 10 more')
  })

  test('maxViolations sets the cap; a nonsensical cap falls back to the default', () => {
    const validator = compileValueSchema(numbers)
    const three = validator.validate(bad, { maxViolations: 3 })
    expect(three.ok ? [] : [three.violations.length, three.omitted]).toEqual([3, 27])
    const fallback = validator.validate(bad, { maxViolations: -1 })
    expect(fallback.ok ? [] : fallback.violations.length).toBe(DEFAULT_MAX_VIOLATIONS)
  })

  test('firstViolation stops at the first one in reading order', () => {
    const validator = compileParameters(server)
    expect(validator.firstViolation({ name: 'x', servers: [{ host: 'a' }, { host: 1 }, { port: 'p' }] })).toEqual({
      path: 'servers[1].host',
      segments: ['servers', 1, 'host'],
      keyword: 'type',
      message: 'expected a string, got the number 1',
    })
    expect(validator.firstViolation({ name: 'x', servers: [] })).toBeUndefined()
  })

  test('firstViolation explains where its single pass stopped: nested paths, oneOf summaries, missing and extra keys', () => {
    const validator = compileParameters(server)
    const first = (value: unknown) => {
      const found = validator.firstViolation(value)
      return found === undefined ? undefined : formatViolation(found)
    }
    expect(first({ name: 'x', servers: [{ host: 'a', extra: 1 }] })).toBe('servers[0].extra: is not an allowed property (allowed: host, port, tls)')
    expect(first({ name: 'x', servers: [{ port: 1 }] })).toBe('servers[0].host: is required but missing')
    expect(first({ name: 'x', servers: [], mode: 'slow' })).toBe('mode: expected one of "fast", "safe", got "slow"')
    expect(first({ name: 'x', servers: [], labels: { 'odd key': [1, Number.NaN] } })).toBe(
      'labels["odd key"][1]: is not lossless JSON: NaN is not a JSON number',
    )
    expect(first({ servers: 'none' })).toBe('servers: expected an array, got the string "none"')
    const edits = defineParameters({
      edits: {
        type: 'array',
        required: true,
        items: {
          oneOf: [
            { type: 'object', additionalProperties: false, properties: { kind: { type: 'string', const: 'a', required: true }, at: { type: 'integer', required: true } } },
            { type: 'object', additionalProperties: false, properties: { kind: { type: 'string', const: 'b', required: true }, to: { type: 'string' } } },
          ],
        },
      },
    })
    expect(compileParameters(edits).firstViolation({ edits: [{ kind: 'b' }, { kind: 'a', at: 'x' }] })).toEqual({
      path: 'edits[1]',
      segments: ['edits', 1],
      keyword: 'oneOf',
      message: 'matches none of the 2 allowed shapes; the closest is shape 1 (kind "a"): at: expected an integer, got the string "x"',
    })
  })
})

describe('lossless JSON', () => {
  test.each([
    [Number.NaN, 'NaN (not a JSON number)'],
    [Number.POSITIVE_INFINITY, 'Infinity (not a JSON number)'],
    [-0, '-0 (not lossless JSON; use 0)'],
    [undefined, 'undefined (not JSON)'],
    [10n, 'a BigInt (not JSON)'],
  ])('%s is not a number', (value, described) => {
    expect(checkValue({ type: 'number' }, value)).toEqual([`(root): expected a number, got ${described}`])
  })

  test('-0 is not an integer, nor the const 0', () => {
    expect(checkValue({ type: 'integer' }, -0)).toEqual(['(root): expected an integer, got -0 (not lossless JSON; use 0)'])
    expect(checkValue({ type: 'integer', const: 0 }, -0)).toEqual(['(root): expected an integer, got -0 (not lossless JSON; use 0)'])
    expect(checkValue({ type: 'number', enum: [0, 1] }, -0)).toEqual(['(root): expected a number, got -0 (not lossless JSON; use 0)'])
  })

  test('class instances, functions and symbols are not objects', () => {
    class Point {
      x = 1
    }
    const open = defineValueSchema({ type: 'object', additionalProperties: true })
    expect(checkValue(open, new Date(0))).toEqual(['(root): expected an object, got a Date (not JSON)'])
    expect(checkValue(open, new Map())).toEqual(['(root): expected an object, got a Map (not JSON)'])
    expect(checkValue(open, new Point())).toEqual(['(root): expected an object, got a Point (not JSON)'])
    expect(checkValue(open, Object.create({ inherited: 1 }))).toEqual([
      '(root): expected an object, got an object with a custom prototype (not JSON)',
    ])
    expect(checkValue(open, () => 1)).toEqual(['(root): expected an object, got a function (not JSON)'])
    expect(checkValue({ type: 'string' }, Symbol('s'))).toEqual(['(root): expected a string, got a symbol (not JSON)'])
  })

  test('objects dressed as arrays and arrays dressed as objects', () => {
    expect(checkValue({ type: 'array' }, Object.create(Array.prototype))).toEqual([
      '(root): expected an array, got an object with a custom prototype (not JSON)',
    ])
    const disguised = Object.setPrototypeOf([1], Object.prototype) as unknown
    expect(checkValue({ type: 'object', additionalProperties: true }, disguised)).toEqual([
      '(root): expected an object, got an array with a custom prototype (not JSON)',
    ])
    expect(checkValue({ type: 'array' }, disguised)).toEqual(['(root): expected an array, got an array with a custom prototype (not JSON)'])
  })

  test('array subclasses, typed arrays, holes and undefined elements', () => {
    class List extends Array<number> {}
    const numbers = defineValueSchema({ type: 'array', items: { type: 'number' } })
    expect(checkValue(numbers, List.from([1]))).toEqual(['(root): expected an array, got a List (not JSON)'])
    expect(checkValue(numbers, new Float64Array(2))).toEqual(['(root): expected an array, got a Float64Array (not JSON)'])
    // oxlint-disable-next-line no-sparse-arrays -- the hole is the point
    expect(checkValue(numbers, [1, , 3])).toEqual(['[1]: expected a number, got undefined (not JSON)'])
    expect(checkValue({ type: 'array' }, [1, undefined])).toEqual(['[1]: is not lossless JSON: undefined is not JSON'])
  })

  test('an own property holding undefined is a violation, not an absent property', () => {
    expect(check(server, { name: 'n', servers: [], mode: undefined })).toEqual([
      'mode: expected a string, got undefined (not JSON)',
    ])
    expect(check(server, { name: 'n', servers: [], extra: undefined })).toEqual(['extra: is not lossless JSON: undefined is not JSON'])
  })

  test('json values and open-object extras are checked all the way down, with the inner path', () => {
    const spec = defineParameters({ data: { type: 'json' } })
    expect(check(spec, { data: { a: [1, { b: new Date(0) }] } })).toEqual([
      'data.a[1].b: is not lossless JSON: a Date is not JSON (only plain objects and arrays are)',
    ])
    expect(check(spec, { data: [1], more: { x: Number.NaN } })).toEqual(['more.x: is not lossless JSON: NaN is not a JSON number'])
    expect(check(server, { name: 'n', servers: [], labels: { f: () => 1 } })).toEqual([
      'labels.f: is not lossless JSON: a function is not JSON',
    ])
  })
})

describe('totality: it reports, never throws', () => {
  test('throwing getters', () => {
    const hostile = {
      name: 'n',
      get servers(): unknown {
        throw new Error('no servers for you')
      },
    }
    expect(check(server, hostile)).toEqual(['(root): reading the value threw: no servers for you'])
    expect(compileParameters(server).is(hostile)).toBe(false)
  })

  test('a oneOf branch whose read throws does not match, and the other branches are still counted', () => {
    // Both branches accept `{ a: "x" }`, so a plain value matches two and is rejected. Here `a` throws on its first
    // read (in the first branch, two functions below the oneOf) and reads "x" after: only the second branch matches.
    const spec = defineValueSchema({
      type: 'array',
      items: {
        oneOf: [
          { type: 'object', additionalProperties: false, properties: { a: { type: 'object', additionalProperties: false, properties: { b: { type: 'string' } } } } },
          { type: 'object', additionalProperties: true, properties: { a: { type: 'json' } } },
        ],
      },
    })
    const throwingOnce = () => {
      let reads = 0
      return {
        get b(): string {
          if (reads++ === 0) throw new Error('first read')
          return 'x'
        },
      }
    }
    expect(compileValueSchema(spec, { cache: false }).is([{ a: { b: 'x' } }])).toBe(false)
    expect(compileValueSchema(spec, { cache: false }).is([{ a: throwingOnce() }])).toBe(true)
    expect(validateValue(spec, [{ a: throwingOnce() }]).ok).toBe(true)
  })

  test('revoked proxies and proxies whose traps throw', () => {
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    expect(check(server, proxy)).toEqual(["(root): reading the value threw: Cannot perform 'IsArray' on a proxy that has been revoked"])
    const trap = new Proxy(
      { name: 'n', servers: [] },
      {
        ownKeys() {
          throw new TypeError('ownKeys trap')
        },
      },
    )
    expect(check(server, trap)).toEqual(['(root): reading the value threw: ownKeys trap'])
    const thrower = new Error('not a plain message')
    Object.defineProperty(thrower, 'message', {
      get() {
        throw new Error('again')
      },
    })
    const nasty = {
      get name(): string {
        throw thrower
      },
    }
    expect(check(server, nasty)).toEqual(['(root): reading the value threw: an unprintable error'])
  })

  test('a well-behaved proxy is read like the object behind it', () => {
    expect(check(server, new Proxy({ name: 'n', servers: [{ host: 'h' }] }, {}))).toEqual([])
  })

  test('cycles in json values and open extras', () => {
    const cycle: Record<string, unknown> = { name: 'n', servers: [] }
    cycle['self'] = cycle
    // `self` is the whole value again: inside it, its own `self` closes the cycle.
    expect(check(server, cycle)).toEqual(['self.self: is not lossless JSON: a cycle (the value contains itself) is not JSON'])
    const list: unknown[] = []
    list.push(list)
    expect(checkValue({ type: 'json' }, list)).toEqual(['[0]: is not lossless JSON: a cycle (the value contains itself) is not JSON'])
  })

  test('100,000-deep nesting in a json value, an open extra and a typed tree: refused as too deep, never a stack overflow', () => {
    let deep: unknown = 'bottom'
    for (let depth = 0; depth < 100_000; depth++) deep = { a: [deep] }
    const [first] = checkValue({ type: 'json' }, deep)
    expect(first).toMatch(/^a(\[0\]\.a)*(\[0\])?: is not lossless JSON: containers nested more than 1000 levels deep are refused/)
    expect(check(server, { name: 'n', servers: [], deep })[0]).toMatch(/^deep(\.a\[0\])+(\.a)?: is not lossless JSON: containers nested more than 1000/)
    let broken: unknown = Number.NaN
    for (let depth = 0; depth < 100_000; depth++) broken = [broken]
    const result = validateValue({ type: 'json' }, broken)
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.violations[0]?.segments).toHaveLength(MAX_JSON_DEPTH)
    const tree = defineValueSchema({ type: 'array', items: { type: 'array', items: { type: 'string' } } })
    expect(checkValue(tree, [[deep]])).toEqual(['[0][0]: expected a string, got an object'])
  })

  test('a json value nested up to MAX_JSON_DEPTH levels is accepted, and serializes', () => {
    let deep: unknown = 'bottom'
    for (let depth = 0; depth < MAX_JSON_DEPTH; depth++) deep = [deep]
    expect(checkValue({ type: 'json' }, deep)).toEqual([])
    expect(check(server, { name: 'n', servers: [], deep })).toEqual([])
    expect(() => JSON.stringify({ deep })).not.toThrow()
  })

  /** Arguments whose `mode` reads 42 the first time, "fast" the second, 42 the third… */
  function flakyArgs(): Record<string, unknown> {
    let reads = 0
    return {
      name: 'n',
      servers: [],
      get mode(): unknown {
        reads++
        return reads % 2 === 1 ? 42 : 'fast'
      },
    }
  }

  test('firstViolation of a throwing getter, a revoked proxy and a getter that answers differently', () => {
    const validator = compileParameters(server)
    const hostile = {
      name: 'n',
      get servers(): unknown {
        throw new Error('no servers for you')
      },
    }
    expect(validator.firstViolation(hostile)).toEqual({ path: '', segments: [], keyword: 'unreadable', message: 'reading the value threw: no servers for you' })
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    expect(validator.firstViolation({ name: 'n', servers: [proxy] })?.path).toBe('servers[0]')
    expect(validator.firstViolation(flakyArgs())).toEqual({ path: 'mode', segments: ['mode'], keyword: 'type', message: 'expected a string, got the number 42' })
  })

  test('a getter that answers differently on each read', () => {
    const result = validateArgs(server, flakyArgs())
    expect(result.ok).toBe(false)
    if (!result.ok) {
      expect(lines(result.violations)).toEqual([
        '(root): the value changed while it was being validated (a getter or proxy answered differently)',
      ])
    }
  })

  test('inherited enumerable keys (a polluted Object.prototype) are not part of the value', () => {
    const closed = defineValueSchema({ type: 'object', additionalProperties: false, properties: { a: { type: 'string' } } })
    const prototype = Object.prototype as Record<string, unknown>
    prototype['polluted'] = 1
    try {
      expect(checkValue(closed, { a: 'x' })).toEqual([])
    } finally {
      delete prototype['polluted']
    }
  })

  test('validators never throw, whatever the value (property)', () => {
    const validator = compileParameters(server)
    fc.assert(
      fc.property(fc.anything({ withBigInt: true, withDate: true, withMap: true, withSet: true, withTypedArray: true, withSparseArray: true, withNullPrototype: true, withBoxedValues: true }), (value) => {
        const verdict = validator.is(value)
        const result = validator.validate(value)
        expect(result.ok).toBe(verdict)
        const first = validator.firstViolation(value)
        expect(first === undefined).toBe(verdict)
        if (!result.ok) expect(result.violations.length).toBeGreaterThan(0)
        // The single pass of firstViolation reports what a full walk stopping at one violation reports.
        const sink = new Sink(1, 1)
        if (!compileArguments(parameterNode(server))(value, sink)) expect(first).toEqual(sink.violations()[0])
      }),
      { numRuns: 500 },
    )
  })
})

describe('compiling and caching', () => {
  test('a spec compiles once per object identity', () => {
    const spec = defineParameters({ path: { type: 'string' } })
    expect(compileParameters(spec)).toBe(compileParameters(spec))
    expect(compileParameters(spec, { cache: false })).not.toBe(compileParameters(spec))
    const schema = defineValueSchema({ type: 'string' })
    expect(compileValueSchema(schema)).toBe(compileValueSchema(schema))
  })

  test('an unsupported spec throws JsonSchemaError from every entry point', () => {
    const bad = { path: { type: 'string', pattern: '[' } } as unknown as ParameterSchemaSpec
    expect(() => validateArgs(bad, {})).toThrow(JsonSchemaError)
    expect(() => compileParameters(bad)).toThrow(JsonSchemaError)
    expect(() => validateValue({ type: 'object' } as unknown as ValueSchemaSpec, {})).toThrow(JsonSchemaError)
  })
})
