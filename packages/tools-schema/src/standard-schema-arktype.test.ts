// arktype 2.x (its types implement Standard JSON Schema since 2.1.28): the JSON Schema the model is sent,
// INVALID_ARGS in our format, frozen lossless arguments that arktype may write its defaults into, and the definition
// errors for types with no JSON form (which arktype's own Standard converter would turn into `{}`).
import { type } from 'arktype'
import { describe, expect, test } from 'vitest'
import { defineTool } from './define-tool.js'
import { argsError, definitionProblems, execution } from './test-support.js'

const server = type({ host: 'string > 0', port: '1 <= number.integer <= 65535' })
const connect = type({ servers: server.array(), retries: 'number.integer = 3' })

const connectTool = defineTool({
  name: 'connect',
  description: 'Connects to servers.',
  parameters: connect,
  execute: (args) => `${args.servers.length} servers, ${args.retries} retries`,
})

const base = { name: 'bad', description: 'Bad.', execute: () => 'ok' }

describe('an arktype type as parameters', () => {
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
        // arktype 2.2 leaves defaults out of its JSON Schema (the key is optional; the default is applied).
        retries: { type: 'integer' },
      },
      required: ['servers'],
    })
    expect(Object.isFrozen(connectTool.parameters)).toBe(true)
  })

  test('regression: defaults arktype writes into nested objects reach the body, deep-frozen, and never the caller', async () => {
    // arktype applies defaults in place: on the frozen snapshot this threw "Cannot assign to read only property".
    let seen: unknown
    const tool = defineTool({
      name: 'nest',
      description: 'Nests.',
      parameters: type({ outer: type({ depth: 'number = 4' }), 'items?': type({ tag: "string = 'x'" }).array() }),
      execute: (args) => ((seen = args), 'ok'),
    })
    const args = { outer: {}, items: [{}] }
    await tool.invoke(args as never, execution('nest', args))
    expect(seen).toEqual({ outer: { depth: 4 }, items: [{ tag: 'x' }] })
    expect(args).toEqual({ outer: {}, items: [{}] })
    expect(Object.isFrozen(seen)).toBe(true)
    expect(Object.isFrozen((seen as { outer: object }).outer)).toBe(true)
    expect(Object.isFrozen((seen as { items: object[] }).items[0])).toBe(true)
  })

  test('INVALID_ARGS lists every arktype issue at our JSON path, without arktype repeating the path and the value', async () => {
    const error = await argsError(connectTool.invoke({ servers: [{ host: '', port: 1.5 }, { port: 2 }], retries: 'x' } as never, execution('connect', {})))
    expect(error.code).toBe('INVALID_ARGS')
    expect(error.violations.map((violation) => [violation.path, violation.keyword, violation.message]).sort()).toEqual(
      [
        ['servers[0].host', 'schema', 'must be non-empty, got the string ""'],
        ['servers[0].port', 'schema', 'must be an integer, got the number 1.5'],
        // A missing key has no value to name: arktype's "(was missing)" stays.
        ['servers[1].host', 'schema', 'must be a string (was missing)'],
        ['retries', 'schema', 'must be a number, got the string "x"'],
      ].sort(),
    )
    const root = await argsError(connectTool.invoke('servers' as never, execution('connect', {})))
    expect(root.violations).toEqual([{ path: '', segments: [], keyword: 'schema', message: 'must be an object, got the string "servers"' }])
  })

  test('arguments that are not lossless JSON are refused before arktype sees them', async () => {
    const error = await argsError(connectTool.invoke({ servers: [{ host: 'a', port: Number.NaN }] } as never, execution('connect', {})))
    expect(error.violations).toEqual([expect.objectContaining({ path: 'servers[0].port', keyword: 'json' })])
  })

  test('the registry hook agrees with invoke', async () => {
    expect(connectTool.validateArguments({ servers: [] })).toEqual({ ok: true })
    const thrown = await argsError(connectTool.invoke({ servers: 'x' } as never, execution('connect', {})))
    expect(connectTool.validateArguments({ servers: 'x' })).toEqual({ ok: false, message: thrown.message })
  })

  test('a narrow is left out of the JSON Schema and enforced by validation, its message reaching the model', async () => {
    const tool = defineTool({
      name: 'mail',
      description: 'Sends mail.',
      parameters: type({ to: type('string').narrow((to, context) => to.includes('@') || context.mustBe('an address')) }),
      execute: () => 'sent',
    })
    expect(tool.parameters).toEqual({ type: 'object', properties: { to: { type: 'string' } }, required: ['to'] })
    const error = await argsError(tool.invoke({ to: 'bob' }, execution('mail', {})))
    expect(error.violations).toEqual([{ path: 'to', segments: ['to'], keyword: 'schema', message: 'must be an address, got the string "bob"' }])
  })
})

describe('arktype types the model cannot be sent are definition errors', () => {
  test.each<[string, unknown, string]>([
    ['a Date', type({ at: 'Date' }), 'a Date has no JSON form'],
    ['a bigint', type({ n: 'bigint' }), 'a value of type bigint has no JSON form'],
    ['undefined in a union', type({ n: 'string | undefined' }), 'the value undefined has no JSON form'],
    ['a class instance', type({ m: type.instanceOf(Map) }), 'an instance of Map has no JSON form'],
  ])('regression: %s is refused, not sent as {} (what arktype’s Standard converter makes of it)', (_label, parameters, reason) => {
    const problems = definitionProblems({ ...base, parameters })
    expect(problems[0]).toBe(
      `parameters: arktype cannot convert its input to JSON Schema (${reason}); transforms, custom types and refinements with no JSON Schema form cannot be sent to a model`,
    )
  })

  test('a type that is not an object is refused for parameters', () => {
    expect(definitionProblems({ ...base, parameters: type('string[]') })).toEqual(['parameters: must describe an object (JSON Schema "type": "object"), got "type": "array"'])
  })
})
