// Prototype pollution: whatever polluted Object.prototype, validators, defineTool and the schema readers see own
// properties only. Pollution is set right before the code under test runs and removed in `finally`, so nothing
// else (vitest, fast-check) ever runs with it.
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { compileParameters, compileValueSchema, parameterNode } from './compile-schema.js'
import { defineTool } from './define-tool.js'
import { assertSupportedOutputSchema, validateStructuredValue } from './structured-output.js'
import { objectFor, parameterMap, valueFor, valueSpec } from './schema-arbitraries.js'
import type { ParameterSchemaSpec, ValueSchemaSpec } from './schema-spec.js'
import { schemaSpecToJsonSchema } from './schema-spec-to-json-schema.js'
import { ToolArgsError } from './tool-args-error.js'
import type { Validator } from './validator.js'

const prototype = Object.prototype as Record<string, unknown>

/** Keys the generated schemas declare (`a`, `b`, `kind`, `x y`, `0`), one they never do, and schema keywords. */
const pollution: readonly (readonly [string, PropertyDescriptor])[] = [
  ['a', { value: 'a', enumerable: true, configurable: true, writable: true }],
  ['b', { value: 1.5, enumerable: true, configurable: true, writable: true }],
  ['kind', { value: 'a', enumerable: true, configurable: true, writable: true }],
  ['x y', { value: { nested: [1] }, enumerable: true, configurable: true, writable: true }],
  ['0', { value: null, enumerable: true, configurable: true, writable: true }],
  ['extra', { value: Number.NaN, enumerable: true, configurable: true, writable: true }],
  // A non-enumerable getter that throws: any read of `-` through the prototype would show. (Its setter writes an
  // own property, as assignment does without it: this pollution is about reads.)
  [
    '-',
    {
      get() {
        throw new Error('read through the prototype')
      },
      set(this: object, value: unknown) {
        Object.defineProperty(this, '-', { value, enumerable: true, writable: true, configurable: true })
      },
      enumerable: false,
      configurable: true,
    },
  ],
  ['required', { value: true, enumerable: true, configurable: true, writable: true }],
  ['additionalProperties', { value: true, enumerable: true, configurable: true, writable: true }],
  ['items', { value: { type: 'string' }, enumerable: true, configurable: true, writable: true }],
  ['command', { value: 'rm -rf /', enumerable: true, configurable: true, writable: true }],
]

/** Runs `run` with Object.prototype polluted, and always cleans up. */
function polluted<T>(run: () => T): T {
  for (const [key, descriptor] of pollution) Object.defineProperty(prototype, key, descriptor)
  try {
    return run()
  } finally {
    for (const [key] of pollution) delete prototype[key]
  }
}

function outcomes(validator: Validator<unknown>, values: readonly unknown[]) {
  return values.map((value) => ({
    is: validator.is(value),
    validate: validator.validate(value),
    first: validator.firstViolation(value),
  }))
}

describe('validators see own properties only, whatever polluted Object.prototype', () => {
  test('parameter maps: the same verdicts and violations with and without pollution', () => {
    fc.assert(
      fc.property(
        parameterMap.chain((spec) => fc.tuple(fc.constant(spec), fc.array(objectFor(spec, true, 0), { minLength: 4, maxLength: 4 }))),
        ([spec, values]) => {
          const validator = compileParameters(spec as unknown as ParameterSchemaSpec, { cache: false })
          const clean = outcomes(validator, values)
          expect(polluted(() => outcomes(validator, values))).toEqual(clean)
        },
      ),
      { numRuns: 300 },
    )
  })

  test('value specs (arrays, objects, oneOf with tags, scalars, json): the same verdicts and violations', () => {
    fc.assert(
      fc.property(
        valueSpec.chain((spec) => fc.tuple(fc.constant(spec), fc.array(valueFor(spec), { minLength: 4, maxLength: 4 }))),
        ([spec, values]) => {
          const validator = compileValueSchema(spec as unknown as ValueSchemaSpec, { cache: false })
          const clean = outcomes(validator, values)
          expect(polluted(() => outcomes(validator, values))).toEqual(clean)
        },
      ),
      { numRuns: 300 },
    )
  })

  test('schemas read under pollution are the schemas read without it', () => {
    fc.assert(
      fc.property(parameterMap, (spec) => {
        const parameters = spec as unknown as ParameterSchemaSpec
        const clean = JSON.stringify(schemaSpecToJsonSchema(parameters))
        expect(polluted(() => JSON.stringify(schemaSpecToJsonSchema(parameters)))).toBe(clean)
      }),
      { numRuns: 200 },
    )
  })

  test('a required property inherited from the prototype is still missing: bash called with {} does not run', async () => {
    let ran = 0
    const bash = defineTool({
      name: 'bash',
      description: 'Runs a command.',
      parameters: { command: { type: 'string', required: true } },
      execute: ({ command }) => {
        ran++
        return command
      },
    })
    const exec = { callId: 'c', name: 'bash', arguments: {}, signal: new AbortController().signal } as never
    const error: unknown = await polluted(() => bash.invoke({} as never, exec).then(() => undefined, (thrown: unknown) => thrown))
    expect(ToolArgsError.isInstance(error)).toBe(true)
    expect((error as ToolArgsError).violations).toEqual([{ path: 'command', segments: ['command'], keyword: 'required', message: 'is required but missing' }])
    expect(ran).toBe(0)
    expect(polluted(() => bash.presentCall === undefined)).toBe(true)
  })

  test('a oneOf tag inherited from the prototype selects no branch', () => {
    const validator = compileValueSchema({
      oneOf: [
        { type: 'object', additionalProperties: false, properties: { kind: { type: 'string', const: 'a', required: true } } },
        { type: 'object', additionalProperties: false, properties: { kind: { type: 'string', const: 'b', required: true } } },
      ],
    })
    const clean = validator.validate({})
    const dirty = polluted(() => validator.validate({}))
    expect(dirty).toEqual(clean)
    expect(dirty.ok).toBe(false)
  })

  test('structured-output schemas and values: pollution changes neither the schema nor the verdict', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } } as const
    assertSupportedOutputSchema(schema)
    const clean = validateStructuredValue({ ...schema, required: ['a'] }, {})
    const dirty = polluted(() => validateStructuredValue({ ...schema, required: ['a'] }, {}))
    expect(dirty.ok).toBe(false)
    expect(!dirty.ok && dirty.error.violations).toEqual(!clean.ok && clean.error.violations)
    // `required`, `items`, `additionalProperties` on the prototype are not keywords of a spec read under pollution.
    expect(polluted(() => parameterNode({ list: { type: 'array' } }))).toEqual(parameterNode({ list: { type: 'array' } }))
  })

  test('a hole in an array reads as a hole, whatever a polluted prototype holds at its index', () => {
    const strings = compileValueSchema({ type: 'array', items: { type: 'string' } })
    const anything = compileValueSchema({ type: 'array' })
    const sparse = ['a', , 'c'] // oxlint-disable-line no-sparse-arrays
    const clean = [strings.validate(sparse), anything.validate(sparse), strings.is(sparse)]
    const arrays = Array.prototype as unknown as Record<number, unknown>
    arrays[1] = 'from Array.prototype'
    let dirty: unknown[]
    try {
      dirty = polluted(() => [strings.validate(sparse), anything.validate(sparse), strings.is(sparse)])
    } finally {
      delete arrays[1]
    }
    expect(dirty).toEqual(clean)
    expect(clean[2]).toBe(false)
    expect(polluted(() => strings.validate(sparse))).toEqual(clean[0])
  })

  test('presentResult is not handed a meta inherited from a polluted prototype as the tool value', () => {
    let seen: unknown
    const tool = defineTool({
      name: 'count',
      description: 'Counts.',
      parameters: {},
      output: { schema: { type: 'integer' }, render: (_args, value) => String(value) },
      execute: () => 1,
      presentResult: (_args, result) => {
        seen = result
        return undefined
      },
    })
    const result = { content: [], isError: false }
    polluted(() => {
      prototype['meta'] = 7
      try {
        tool.presentResult?.({}, result)
      } finally {
        delete prototype['meta']
      }
    })
    expect(Object.hasOwn(seen as object, 'meta')).toBe(false)
    expect(seen).not.toBe(result)
  })
})
