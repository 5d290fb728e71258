// valibot 1.x through @valibot/to-json-schema's toStandardJsonSchema (valibot's own schemas implement Standard
// Schema but not Standard JSON Schema): the JSON Schema the model is sent, INVALID_ARGS in our format, frozen
// lossless arguments, and the definition errors for what has no JSON Schema form.
import { toStandardJsonSchema } from '@valibot/to-json-schema'
import * as v from 'valibot'
import { describe, expect, test } from 'vitest'
import { defineTool } from './define-tool.js'
import { argsError, definitionProblems, execution } from './test-support.js'

const connect = toStandardJsonSchema(
  v.object({
    servers: v.array(v.object({ host: v.pipe(v.string(), v.minLength(1)), port: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(65535)) })),
    retries: v.optional(v.pipe(v.number(), v.integer()), 3),
  }),
)

const connectTool = defineTool({
  name: 'connect',
  description: 'Connects to servers.',
  parameters: connect,
  execute: (args) => `${args.servers.length} servers, ${args.retries} retries`,
})

const base = { name: 'bad', description: 'Bad.', execute: () => 'ok' }

describe('a valibot schema (toStandardJsonSchema) as parameters', () => {
  test('its input JSON Schema is what the model is sent, frozen, without $schema', () => {
    expect(connectTool.parameters).toEqual({
      type: 'object',
      properties: {
        servers: {
          type: 'array',
          items: {
            type: 'object',
            properties: { host: { type: 'string', minLength: 1 }, port: { type: 'integer', minimum: 1, maximum: 65535 } },
            required: ['host', 'port'],
          },
        },
        retries: { type: 'integer', default: 3 },
      },
      required: ['servers'],
    })
    expect(Object.isFrozen(connectTool.parameters)).toBe(true)
    expect(Object.isFrozen(connectTool.parameters.properties)).toBe(true)
  })

  test('the body gets the schema output (defaults applied), deep-frozen and detached from the caller', async () => {
    let seen: unknown
    const tool = defineTool({ name: 'connect', description: 'Connects.', parameters: connect, execute: (args) => ((seen = args), 'ok') })
    const args = { servers: [{ host: 'a', port: 22 }] }
    await tool.invoke(args as never, execution('connect', args))
    expect(seen).toEqual({ servers: [{ host: 'a', port: 22 }], retries: 3 })
    expect(seen).not.toBe(args)
    expect(args).toEqual({ servers: [{ host: 'a', port: 22 }] })
    expect(Object.isFrozen(seen)).toBe(true)
    expect(Object.isFrozen((seen as { servers: object[] }).servers[0])).toBe(true)
  })

  test('INVALID_ARGS lists every valibot issue at our JSON path, naming the offending value once, in our words', async () => {
    const error = await argsError(connectTool.invoke({ servers: [{ host: '', port: 1.5 }, { host: 'b', port: 'x' }, { port: 2 }] } as never, execution('connect', {})))
    expect(error.code).toBe('INVALID_ARGS')
    expect(error.violations.map((violation) => [violation.path, violation.keyword, violation.message])).toEqual([
      ['servers[0].host', 'schema', 'Invalid length: Expected >=1, got the string ""'],
      ['servers[0].port', 'schema', 'Invalid integer, got the number 1.5'],
      ['servers[1].port', 'schema', 'Invalid type: Expected number, got the string "x"'],
      // A missing key has no value to name: valibot's own words stay.
      ['servers[2].host', 'schema', 'Invalid key: Expected "host" but received undefined'],
    ])
    expect(error.message).toContain('- servers[0].port: Invalid integer, got the number 1.5')
  })

  test('arguments that are not lossless JSON are refused before valibot sees them', async () => {
    const error = await argsError(connectTool.invoke({ servers: [{ host: 'a', port: Number.POSITIVE_INFINITY }] } as never, execution('connect', {})))
    expect(error.violations).toEqual([expect.objectContaining({ path: 'servers[0].port', keyword: 'json' })])
  })

  test('the registry hook agrees with invoke, and never throws on a revoked proxy', async () => {
    expect(connectTool.validateArguments({ servers: [] })).toEqual({ ok: true })
    const thrown = await argsError(connectTool.invoke({ servers: 'x' } as never, execution('connect', {})))
    expect(connectTool.validateArguments({ servers: 'x' })).toEqual({ ok: false, message: thrown.message })
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    expect(connectTool.validateArguments(proxy).ok).toBe(false)
  })

  test('a refinement (v.check) is left out of the JSON Schema and enforced by validation, its message reaching the model', async () => {
    const tool = defineTool({
      name: 'mail',
      description: 'Sends mail.',
      parameters: toStandardJsonSchema(v.object({ to: v.pipe(v.string(), v.check((to) => to.includes('@'), 'must be an address')) })),
      execute: () => 'sent',
    })
    expect(tool.parameters).toEqual({ type: 'object', properties: { to: { type: 'string' } }, required: ['to'] })
    const error = await argsError(tool.invoke({ to: 'bob' }, execution('mail', {})))
    expect(error.violations).toEqual([{ path: 'to', segments: ['to'], keyword: 'schema', message: 'must be an address, got the string "bob"' }])
  })
})

describe('valibot schemas the model cannot be sent are definition errors', () => {
  test('regression: a plain valibot schema (no Standard JSON Schema) is refused, telling the author to wrap it', () => {
    expect(definitionProblems({ ...base, parameters: v.object({ a: v.string() }) })).toEqual([
      'parameters: a valibot schema without Standard JSON Schema ("~standard.jsonSchema") cannot be sent to a model: valibot schemas do not implement it themselves: wrap the schema with toStandardJsonSchema(schema) from @valibot/to-json-schema (≥ 1.5)',
    ])
  })

  test('a transform is refused, naming the transform', () => {
    const problems = definitionProblems({ ...base, parameters: toStandardJsonSchema(v.object({ n: v.pipe(v.string(), v.transform((text) => text.length)) })) })
    expect(problems).toEqual([expect.stringMatching(/^parameters: valibot cannot convert its output to JSON Schema \(The "transform" action cannot be converted/)])
  })

  test('a Date and a custom type are refused, on the side that has them', () => {
    const date = definitionProblems({ ...base, parameters: toStandardJsonSchema(v.object({ at: v.date() })) })
    expect(date[0]).toMatch(/^parameters: valibot cannot convert its input to JSON Schema \(The "date" schema cannot be converted/)
    expect(date[0]).toMatch(/cannot be sent to a model$/)
    const custom = definitionProblems({ ...base, parameters: toStandardJsonSchema(v.object({ n: v.custom<string>((value) => typeof value === 'string') })) })
    expect(custom[0]).toMatch(/^parameters: valibot cannot convert its input to JSON Schema \(The "custom" schema cannot be converted/)
  })

  test('a schema that is not an object is refused for parameters', () => {
    expect(definitionProblems({ ...base, parameters: toStandardJsonSchema(v.string()) })).toEqual([
      'parameters: must describe an object (JSON Schema "type": "object"), got "type": "string"',
    ])
  })
})
