// What a Standard JSON Schema converter returns, as the model is sent it. zod 4 makes every conversion result a
// Standard Schema again (a non-enumerable `~standard` on the result's root), so a schema whose converter embeds
// another conversion's result (composed from zod parts) carries one nested: it is an annotation, not JSON Schema,
// and is set aside; any other value that is not JSON is still refused, with its path.
import { Ajv2020 } from 'ajv/dist/2020.js'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { defineTool, type ToolSpec } from './define-tool.js'
import type { StandardJsonSchemaOptions, StandardSchemaWithJsonSchema } from './standard-schema.js'
import { readConvertedJsonSchema } from './standard-schema-json.js'
import { ToolDefinitionError } from './tool-definition-error.js'

const options: StandardJsonSchemaOptions = { target: 'draft-2020-12' }

/** A Standard Schema for `{ [key]: part }` whose converters embed each part's own zod conversion result. */
function composed(parts: Record<string, z.ZodType>): StandardSchemaWithJsonSchema {
  const whole = z.object(parts)
  const side = (which: 'input' | 'output') => (given: StandardJsonSchemaOptions) => ({
    type: 'object',
    properties: Object.fromEntries(Object.entries(parts).map(([key, part]) => [key, part['~standard'].jsonSchema[which](given)])),
    required: Object.keys(parts).filter((key) => !(parts[key] as z.ZodType).safeParse(undefined).success),
  })
  return { '~standard': { ...whole['~standard'], jsonSchema: { input: side('input'), output: side('output') } } }
}

function tool(parameters: unknown) {
  return defineTool({ name: 'nested', description: 'Nested.', parameters, execute: () => 'ok' } as unknown as ToolSpec<StandardSchemaWithJsonSchema>)
}

function definitionProblems(parameters: unknown): string[] {
  try {
    tool(parameters)
  } catch (error) {
    if (ToolDefinitionError.isInstance(error)) return error.problems.map((problem) => `${problem.path}: ${problem.message}`)
    throw error
  }
  throw new Error('defineTool accepted the spec')
}

const parts = {
  server: z.object({ host: z.string().describe('Host name.'), port: z.int().min(1).default(22) }),
  tags: z.array(z.object({ key: z.string(), value: z.union([z.string(), z.number()]) })),
  target: z.union([z.object({ file: z.string() }), z.object({ url: z.string() })]).optional(),
  mode: z.enum(['read', 'write']).default('read').describe('How to open it.'),
}

describe('regression: a nested non-enumerable ~standard (an embedded zod conversion result) is not JSON Schema', () => {
  test('each embedded zod result really carries one: the case is real', () => {
    const embedded = parts.server['~standard'].jsonSchema.input(options) as object
    const descriptor = Object.getOwnPropertyDescriptor(embedded, '~standard')
    expect(descriptor?.enumerable).toBe(false)
    expect((descriptor?.value as { vendor?: unknown } | undefined)?.vendor).toBe('zod')
  })

  test('nested objects, arrays of objects, unions, optional keys, defaults and descriptions are sent as zod converted them', () => {
    const defined = tool(composed(parts))
    const expected = JSON.parse(JSON.stringify(composed(parts)['~standard'].jsonSchema.input(options))) as Record<string, Record<string, object>>
    // Each embedded part keeps its own `$schema` (the root's is dropped): it is JSON, the model may be sent it.
    expect(defined.parameters).toEqual(expected)
    expect(defined.parameters.properties).toMatchObject({
      server: { type: 'object', properties: { host: { type: 'string', description: 'Host name.' }, port: { type: 'integer', default: 22 } } },
      tags: { type: 'array', items: { type: 'object', required: ['key', 'value'] } },
      target: { anyOf: [{ type: 'object' }, { type: 'object' }] },
      mode: { type: 'string', enum: ['read', 'write'], default: 'read', description: 'How to open it.' },
    })
    expect(defined.parameters['required']).toEqual(['server', 'tags'])
    for (const key of Object.keys(parts)) {
      const property = (defined.parameters.properties as Record<string, object>)[key] as object
      expect(Object.getOwnPropertyNames(property)).not.toContain('~standard')
      expect(Object.isFrozen(property)).toBe(true)
    }
  })

  test('the JSON Schema sent compiles under ajv and agrees with zod on sample values', () => {
    const defined = tool(composed(parts))
    const validate = new Ajv2020({ strict: false, ownProperties: true }).compile(defined.parameters)
    const whole = z.object(parts)
    const samples = [
      { server: { host: 'a' }, tags: [] },
      { server: { host: 'a', port: 0 }, tags: [] },
      { server: { host: 'a' }, tags: [{ key: 'k', value: 1 }], target: { url: 'u' }, mode: 'write' },
      { server: { host: 'a' }, tags: [{ key: 'k', value: true }] },
      { server: {}, tags: [] },
      { server: { host: 'a' }, tags: [], mode: 'append' },
    ]
    for (const sample of samples) {
      expect(validate(sample)).toBe(whole.safeParse(sample).success)
      expect(defined.validateArguments(sample).ok).toBe(whole.safeParse(sample).success)
    }
  })

  test('a plain zod schema with the same parts sends the same properties (zod itself adds nothing nested)', () => {
    const plain = tool(z.object(parts))
    const nested = tool(composed(parts))
    const strip = (value: unknown) => JSON.parse(JSON.stringify(value, (key, entry: unknown) => (key === '$schema' ? undefined : entry))) as unknown
    expect(strip(nested.parameters)).toEqual(strip(plain.parameters))
  })
})

describe('what is not JSON is still refused, wherever it is', () => {
  const standard = z.object({})['~standard']
  const withSchema = (input: unknown): StandardSchemaWithJsonSchema => ({
    '~standard': { ...standard, jsonSchema: { input: () => input, output: () => ({ type: 'object' }) } },
  })
  const annotation = (target: object, value: unknown) => Object.defineProperty(target, '~standard', { value, enumerable: false })

  test.each<[string, () => unknown, RegExp]>([
    ['an enumerable ~standard (functions)', () => ({ type: 'object', properties: { a: { type: 'string', '~standard': standard } } }), / at properties\.a\["~standard"\]\.validate: a function is not JSON$/],
    ['a non-enumerable key that is not a Standard Schema annotation', () => ({ type: 'object', properties: { a: Object.defineProperty({ type: 'string' }, 'hidden', { value: 1 }) } }), / at properties\.a\.hidden: a non-enumerable property "hidden" would be lost in JSON$/],
    ['a non-enumerable ~standard that is not Standard Schema properties', () => ({ type: 'object', properties: { a: annotation({ type: 'string' }, 'odd') } }), / at properties\.a\["~standard"\]: a non-enumerable property "~standard" would be lost in JSON$/],
    ['NaN beside an annotation', () => ({ type: 'object', properties: { a: annotation({ type: 'number', maximum: Number.NaN }, standard) } }), / at properties\.a\.maximum: /],
    ['a function', () => ({ type: 'object', properties: { a: { type: 'string', default: () => 'x' } } }), / at properties\.a\.default: a function is not JSON$/],
    ['a class instance', () => ({ type: 'object', properties: { a: { type: 'string', default: new Date(0) } } }), / at properties\.a\.default: .*Date/],
  ])('%s is refused at parameters, naming where', (_label, input, reason) => {
    const problems = definitionProblems(withSchema(input()))
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/^parameters: the input JSON Schema zod produced is not lossless JSON at /)
    expect(problems[0]).toMatch(reason)
  })

  test('a cycle is refused, and a converter result that is not a plain object too', () => {
    const cyclic: Record<string, unknown> = { type: 'object', properties: {} }
    ;(cyclic['properties'] as Record<string, unknown>)['self'] = cyclic
    expect(definitionProblems(withSchema(cyclic))[0]).toMatch(/^parameters: the input JSON Schema zod produced is not lossless JSON at properties\.self.*: a cycle/)
    expect(readConvertedJsonSchema(new Map(), 'input', 'acme')).toEqual({ problem: 'the input JSON Schema acme produced must be a plain object, got a Map (not JSON)' })
    expect(readConvertedJsonSchema([], 'output', 'acme').problem).toMatch(/^the output JSON Schema acme produced must be an object, got /)
  })

  test('a throwing getter in the result is a problem, never a throw', () => {
    const hostile = { type: 'object', get properties(): never {
      throw new Error('boom')
    } }
    expect(readConvertedJsonSchema(hostile, 'input', 'acme')).toEqual({ problem: 'the input JSON Schema acme produced cannot be read: boom' })
  })
})
