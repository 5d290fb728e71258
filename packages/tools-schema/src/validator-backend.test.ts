import { afterEach, describe, expect, test, vi } from 'vitest'
import { backendUnderTest } from './backend-under-test.setup.js'
import { compileParameters, compileValueSchema } from './compile-schema.js'
import { defineTool } from './define-tool.js'
import { MAX_GENERATED_NODES, stringLiteral } from './generate-validator.js'
import type { ParameterSchemaSpec, ValueSchemaSpec } from './schema-spec.js'
import { setDefaultValidatorBackend } from './validator-backend.js'
import { GENERATE_AFTER_CALLS, type Validator } from './validator.js'

const expectedDefault = backendUnderTest

describe('choosing the backend', () => {
  test('the default is generated code where the host allows it; { backend: "closures" } asks for closures', () => {
    const spec = { path: { type: 'string', required: true } } as const
    expect(compileParameters(spec, { cache: false }).backend).toBe(expectedDefault)
    expect(compileParameters(spec, { backend: 'auto', cache: false }).backend).toBe('generated')
    expect(compileParameters(spec, { backend: 'closures', cache: false }).backend).toBe('closures')
    // A cached validator per backend: asking for the other one never returns the first.
    expect(compileParameters(spec, { backend: 'closures' })).not.toBe(compileParameters(spec, { backend: 'auto' }))
    expect(compileParameters(spec, { backend: 'closures' })).toBe(compileParameters(spec, { backend: 'closures' }))
  })

  test('defineTool validates with the default backend', async () => {
    const previous = setDefaultValidatorBackend('closures')
    try {
      const tool = defineTool({ name: 'echo', description: 'Echo.', parameters: { text: { type: 'string', required: true } }, execute: (args) => args.text })
      await expect(tool.execute({ text: 1 } as never, { signal: new AbortController().signal } as never)).rejects.toThrow(
        'text: expected a string, got the number 1',
      )
      await expect(tool.execute({ text: 'hi' }, { signal: new AbortController().signal } as never)).resolves.toBeDefined()
    } finally {
      setDefaultValidatorBackend(previous)
    }
  })

  test('setDefaultValidatorBackend returns the previous choice and refuses anything else with a TypeError', () => {
    const previous = setDefaultValidatorBackend('closures')
    expect(setDefaultValidatorBackend(previous)).toBe('closures')
    expect(() => setDefaultValidatorBackend('generated' as never)).toThrow(new TypeError('the validator backend must be "auto" or "closures", got "generated"'))
    expect(() => setDefaultValidatorBackend(undefined as never)).toThrow(TypeError)
  })

  test('an unknown backend option means the default, never a throw', () => {
    expect(compileValueSchema({ type: 'string' }, { backend: 'fast' as never, cache: false }).backend).toBe(expectedDefault)
  })

  test(`a schema with more than ${MAX_GENERATED_NODES} distinct nodes compiles to closures, with the same answers`, () => {
    const properties: Record<string, ValueSchemaSpec> = {}
    for (let index = 0; index <= MAX_GENERATED_NODES; index++) properties[`p${index}`] = { type: 'array', items: { type: 'integer' } }
    const large = compileValueSchema({ type: 'object', additionalProperties: false, properties } as ValueSchemaSpec, { backend: 'auto', cache: false })
    expect(large.backend).toBe('closures')
    expect(large.is({ p0: [1], p2000: [] })).toBe(true)
    expect(large.firstViolation({ p7: ['x'] })?.path).toBe('p7[0]')
  })
})

describe('checks written inline and checks called', () => {
  // The generated accept function writes an object's or an array's check inline where the node is first met
  // (within a budget and a depth), and calls a function elsewhere: the verdicts must not depend on which.
  function agree(spec: ValueSchemaSpec, values: readonly unknown[]): boolean[] {
    const generated = compileValueSchema(spec, { backend: 'auto', cache: false })
    const closures = compileValueSchema(spec, { backend: 'closures', cache: false })
    expect(generated.backend).toBe('generated')
    return values.map((value) => {
      expect(generated.firstViolation(value)).toEqual(closures.firstViolation(value))
      expect(generated.is(value)).toBe(closures.is(value))
      return generated.is(value)
    })
  }

  test('is and firstViolation are own functions of each validator, answering alike when called detached', () => {
    const spec: ValueSchemaSpec = { type: 'object', additionalProperties: false, properties: { n: { type: 'integer', required: true } } }
    const generated = compileValueSchema(spec, { backend: 'auto', cache: false })
    const closures = compileValueSchema(spec, { backend: 'closures', cache: false })
    for (const validator of [generated, closures]) {
      expect(Object.hasOwn(validator, 'is')).toBe(true)
      expect(Object.hasOwn(validator, 'firstViolation')).toBe(true)
      const { is, firstViolation } = validator
      expect(is({ n: 1 })).toBe(true)
      expect(firstViolation({ n: 'x' })).toEqual({ path: 'n', segments: ['n'], keyword: 'type', message: 'expected an integer, got the string "x"' })
      expect(firstViolation({ n: 1 })).toBeUndefined()
    }
    // Two validators of the same schema have functions of their own (generated code of their own).
    const again = compileValueSchema(spec, { backend: 'auto', cache: false })
    expect(again.firstViolation).not.toBe(generated.firstViolation)
    expect(again.is).not.toBe(generated.is)
  })

  test('objects nested twelve levels deep (past the inline depth)', () => {
    let spec: ValueSchemaSpec = { type: 'object', additionalProperties: false, properties: { leaf: { type: 'integer', required: true } } }
    let valid: unknown = { leaf: 1 }
    let invalid: unknown = { leaf: 'x' }
    for (let depth = 0; depth < 12; depth++) {
      spec = { type: 'object', additionalProperties: false, properties: { next: { ...spec, required: true }, tags: { type: 'array', items: { type: 'string' } } } }
      valid = { next: valid, tags: ['a'] }
      invalid = { next: invalid }
    }
    expect(agree(spec, [valid, invalid, { next: valid, tags: [1] }])).toEqual([true, false, false])
  })

  test('forty object-valued properties (past the inline budget)', () => {
    const properties: Record<string, ValueSchemaSpec> = {}
    const valid: Record<string, unknown> = {}
    for (let index = 0; index < 40; index++) {
      properties[`p${index}`] = { type: 'object', additionalProperties: false, properties: { n: { type: 'integer', required: true } } }
      valid[`p${index}`] = { n: index }
    }
    const spec: ValueSchemaSpec = { type: 'object', additionalProperties: false, properties }
    expect(agree(spec, [valid, { ...valid, p0: { n: 'x' } }, { ...valid, p39: { n: 'x' } }, { ...valid, p39: {} }])).toEqual([true, false, false, false])
  })

  test('one node under two properties and in an array: inline at the first, called at the others', () => {
    const point: ValueSchemaSpec = { type: 'object', additionalProperties: false, properties: { x: { type: 'number', required: true } } }
    const spec: ValueSchemaSpec = { type: 'object', additionalProperties: false, properties: { from: point, to: point, path: { type: 'array', items: point } } }
    const good = { x: 1 }
    expect(
      agree(spec, [
        { from: good, to: good, path: [good, good] },
        { from: { x: 'a' }, to: good },
        { from: good, to: { x: 'a' } },
        { from: good, path: [good, { y: 1 }] },
      ]),
    ).toEqual([true, false, false, false])
  })

  test('arrays with a plain prototype set on them are not objects, closed or open, at the root, inline or called', () => {
    // A closed object's generated check tells arrays apart after its loop: every kind of array must still fail.
    const disguise = (array: unknown[], proto: object | null) => Object.setPrototypeOf(array, proto) as unknown
    const dressedUp = [Object.prototype, null].flatMap((proto) => [
      disguise([], proto),
      disguise(Object.assign([], { name: 'n' }), proto),
      disguise(Object.assign(['x'], { name: 'n' }), proto),
    ])
    const message = 'expected an object, got an array with a custom prototype (not JSON)'
    for (const additionalProperties of [false, true]) {
      const item: ValueSchemaSpec = { type: 'object', additionalProperties, properties: { name: { type: 'string' } } }
      const required: ValueSchemaSpec = { type: 'object', additionalProperties, properties: { name: { type: 'string', required: true } } }
      // At the root; inline in an array (first met) and called (met again, under a second property).
      expect(agree(item, dressedUp)).toEqual(dressedUp.map(() => false))
      expect(agree(required, dressedUp)).toEqual(dressedUp.map(() => false))
      const spec: ValueSchemaSpec = { type: 'object', additionalProperties: false, properties: { list: { type: 'array', items: item }, one: item } }
      expect(agree(spec, dressedUp.flatMap((value) => [{ list: [{ name: 'a' }, value] }, { one: value }]))).toEqual(dressedUp.flatMap(() => [false, false]))
      expect(agree(spec, [{ list: [{ name: 'a' }, {}], one: { name: 'b' } }])).toEqual([true])
      const generated = compileValueSchema(spec, { backend: 'auto', cache: false })
      for (const value of dressedUp) {
        expect(generated.firstViolation({ list: [{}, value] })).toMatchObject({ path: 'list[1]', keyword: 'type', message })
        expect(generated.firstViolation({ one: value })).toMatchObject({ path: 'one', keyword: 'type', message })
      }
    }
  })
})

describe('a host that forbids code generation', () => {
  afterEach(() => {
    vi.unstubAllGlobals()
    vi.resetModules()
  })

  test('is detected on first use, not at import; every validator then uses closures with the same answers', async () => {
    vi.resetModules()
    let attempts = 0
    // What a Content Security Policy without unsafe-eval (or --disallow-code-generation-from-strings) does.
    vi.stubGlobal('Function', function forbidden() {
      attempts++
      throw new EvalError('Code generation from strings disallowed for this context')
    })
    const schema = await import('./index.js')
    expect(attempts).toBe(0)
    const validator = schema.compileParameters({ port: { type: 'integer', minimum: 1, required: true } })
    expect(validator.backend).toBe('closures')
    expect(validator.is({ port: 80 })).toBe(true)
    expect(validator.firstViolation({ port: 0 })?.message).toBe('must be at least 1, got 0')
    schema.compileValueSchema({ type: 'string' })
    expect(attempts).toBe(1)
  })
})

/** Both backends for one spec, checked to agree on each value. */
function both(spec: ValueSchemaSpec): readonly [Validator<unknown>, Validator<unknown>] {
  const generated = compileValueSchema(spec, { backend: 'auto', cache: false })
  expect(generated.backend).toBe('generated')
  return [generated, compileValueSchema(spec, { backend: 'closures', cache: false })]
}

function agreeOn(spec: ValueSchemaSpec, accepted: readonly unknown[], rejected: readonly unknown[]): void {
  const [generated, closures] = both(spec)
  for (const value of accepted) {
    expect(generated.is(value), JSON.stringify(value)).toBe(true)
    expect(closures.is(value)).toBe(true)
  }
  for (const value of rejected) {
    expect(generated.is(value), JSON.stringify(value)).toBe(false)
    expect(closures.is(value)).toBe(false)
    expect(generated.validate(value)).toEqual(closures.validate(value))
  }
}

const hostileNames = [
  '"]);process.exit(1);//',
  "'}};globalThis.pwned=1;//",
  '`${globalThis.pwned=1}`',
  '\\',
  '\\"',
  '*/globalThis.pwned=1;/*',
  '__proto__',
  'constructor',
  'toString',
  'line\u2028separator',
  'paragraph\u2029separator',
  '\u0000nul',
  '',
]

describe('hostile specs reach the generated source only as escaped literals', () => {
  afterEach(() => {
    expect((globalThis as { pwned?: unknown }).pwned).toBeUndefined()
  })

  test('stringLiteral round-trips every string, line separators escaped', () => {
    for (const name of hostileNames) {
      const literal = stringLiteral(name)
      expect(literal).not.toMatch(/[\u2028\u2029]/)
      expect(new Function(`return ${literal}`)()).toBe(name)
    }
  })

  test('property names', () => {
    const properties: Record<string, unknown> = {}
    for (const name of hostileNames) Object.defineProperty(properties, name, { value: { type: 'string', required: true }, enumerable: true })
    const value: Record<string, unknown> = {}
    for (const name of hostileNames) Object.defineProperty(value, name, { value: name, enumerable: true, writable: true })
    const wrong = { ...value }
    Object.defineProperty(wrong, '__proto__', { value: 1, enumerable: true })
    agreeOn({ type: 'object', additionalProperties: false, properties } as ValueSchemaSpec, [value], [wrong, {}, { ...value, extra: 1 }])
    const parameters = compileParameters(properties as ParameterSchemaSpec, { backend: 'auto', cache: false })
    expect(parameters.backend).toBe('generated')
    expect(parameters.is(value)).toBe(true)
  })

  test('enum members, consts and discriminator tags', () => {
    agreeOn({ type: 'string', enum: hostileNames }, hostileNames, ['x', 1, null])
    const many = [...hostileNames, ...Array.from({ length: 10 }, (_, index) => `m${index}`)]
    agreeOn({ type: 'string', enum: many }, many, ['m10'])
    agreeOn({ type: 'string', const: hostileNames[0] as string }, [hostileNames[0]], [hostileNames[1]])
    const tagged = {
      oneOf: hostileNames.slice(0, 4).map((tag) => ({
        type: 'object',
        additionalProperties: false,
        properties: { kind: { type: 'string', const: tag, required: true } },
      })),
    } as unknown as ValueSchemaSpec
    agreeOn(tagged, hostileNames.slice(0, 4).map((kind) => ({ kind })), [{ kind: 'other' }, { kind: hostileNames[5] }, {}])
  })

  test('patterns are passed as RegExp values, never written into the source', () => {
    agreeOn({ type: 'string', pattern: '"\\]\\);process\\.exit\\(1\\);//' }, ['"]);process.exit(1);//'], ['x'])
    agreeOn({ type: 'string', pattern: '`\\$\\{1\\}`' }, ['`${1}`'], ['`$1`'])
    agreeOn({ type: 'string', pattern: '^\u2028$' }, ['\u2028'], ['\u2029'])
    agreeOn({ type: 'string', pattern: '\\/\\*' }, ['/*'], ['*/'])
  })

  test('numbers: negative, tiny and huge bounds', () => {
    agreeOn({ type: 'number', minimum: -1e21, exclusiveMaximum: 5e-324, multipleOf: 0.5 }, [-1e20, 0, -0.5], [5e-324, -1e22, 0.25])
    agreeOn({ type: 'number', enum: [0, -1.5, 1e21] }, [0, -1.5, 1e21], [-0, 1])
    agreeOn({ type: 'integer', const: 0 }, [0], [-0, 1])
  })
})

describe('generating code when hot (issue 34: no code generation on the definition path)', () => {
  const spec = { path: { type: 'string', required: true }, limit: { type: 'integer', minimum: 1 } } as const

  test('{ generate: "when-hot" }: closures answer the first GENERATE_AFTER_CALLS - 1 calls, the code is generated at the last', () => {
    const validator = compileParameters(spec, { generate: 'when-hot', cache: false })
    expect(validator.backend).toBe('closures')
    const verdicts = new Set<boolean>()
    for (let call = 1; call < GENERATE_AFTER_CALLS; call += 1) verdicts.add(validator.is(call % 2 === 0 ? { path: 'a' } : { path: 'a', limit: 0 }))
    expect(verdicts).toEqual(new Set([true, false]))
    expect(validator.backend).toBe('closures')
    expect(validator.is({ path: 'b', limit: 2 })).toBe(true)
    expect(validator.backend).toBe(backendUnderTest)
    // The same verdicts and violations after the switch.
    expect(validator.is({ path: 'a', limit: 0 })).toBe(false)
    expect(validator.firstViolation({ path: 'a', limit: 0 })?.path).toBe('limit')
    expect(validator.validate({ path: 'a', limit: 0 })).toMatchObject({ ok: false, violations: [{ path: 'limit', keyword: 'minimum' }] })
  })

  test('compiling the same spec without the option generates at once, for the validator already made', () => {
    const shared = { path: { type: 'string', required: true } } as const
    const lazy = compileParameters(shared, { generate: 'when-hot' })
    expect(lazy.backend).toBe('closures')
    const eager = compileParameters(shared)
    expect(eager).toBe(lazy)
    expect(eager.backend).toBe(backendUnderTest)
  })

  test('defineTool generates no code at definition; a tool called GENERATE_AFTER_CALLS times runs generated code', async () => {
    const seen: unknown[] = []
    const tool = defineTool({ name: 'read', description: 'Reads.', parameters: { path: { type: 'string', required: true } }, execute: (args) => (seen.push(args.path), 'ok') })
    const generating = vi.spyOn(globalThis, 'Function')
    try {
      for (let call = 1; call < GENERATE_AFTER_CALLS; call += 1) expect(tool.validateArguments({ path: String(call) })).toEqual({ ok: true })
      expect(generating).not.toHaveBeenCalled()
      expect(tool.validateArguments({ path: 'last' })).toEqual({ ok: true })
      expect(generating).toHaveBeenCalledTimes(backendUnderTest === 'generated' ? 1 : 0)
    } finally {
      generating.mockRestore()
    }
    expect(tool.validateArguments({ path: 3 })).toMatchObject({ ok: false, message: expect.stringContaining('path') })
  })
})
