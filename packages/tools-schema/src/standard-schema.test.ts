import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { defineTool } from './define-tool.js'
import { ToolOutputError } from './tool-output-error.js'
import { argsError, definitionProblems, execution } from './test-support.js'

const connect = z.object({
  servers: z.array(z.object({ host: z.string().min(1), port: z.number().int().min(1).max(65535) })),
  retries: z.number().int().default(3),
})

const connectTool = defineTool({
  name: 'connect',
  description: 'Connects to servers.',
  parameters: connect,
  execute: (args) => `${args.servers.length} servers, ${args.retries} retries`,
})

describe('a zod schema as parameters', () => {
  test('its input JSON Schema is what the model is sent, converted once and frozen, without $schema', () => {
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
        retries: { type: 'integer', default: 3, minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
      },
      required: ['servers'],
    })
    expect(Object.isFrozen(connectTool.parameters)).toBe(true)
    expect(Object.isFrozen(connectTool.parameters.properties)).toBe(true)
  })

  test('the body gets the schema output (defaults applied), as a deep-frozen copy detached from the caller', async () => {
    let seen: unknown
    const tool = defineTool({
      name: 'connect',
      description: 'Connects.',
      parameters: connect,
      execute: (args) => ((seen = args), 'ok'),
    })
    const args = { servers: [{ host: 'a', port: 22 }] }
    await tool.invoke(args as never, execution('connect', args))
    expect(seen).toEqual({ servers: [{ host: 'a', port: 22 }], retries: 3 })
    expect(seen).not.toBe(args)
    expect(Object.isFrozen(seen)).toBe(true)
    expect(Object.isFrozen((seen as { servers: object[] }).servers[0])).toBe(true)
  })

  test('INVALID_ARGS lists every zod issue at our JSON path, naming the offending value', async () => {
    const error = await argsError(connectTool.invoke({ servers: [{ host: '', port: 0 }, { host: 'b' }] } as never, execution('connect', {})))
    expect(error.code).toBe('INVALID_ARGS')
    const lines = error.violations.map((violation) => [violation.path, violation.keyword, violation.message])
    expect(lines).toEqual([
      ['servers[0].host', 'schema', expect.stringMatching(/>=1 characters, got the string ""$/)],
      ['servers[0].port', 'schema', expect.stringMatching(/>=1, got the number 0$/)],
      ['servers[1].port', 'schema', expect.stringMatching(/^Invalid input: expected number, received undefined$/)],
    ])
    expect(error.message).toContain('servers[1].port')
  })

  test('arguments that are not lossless JSON are refused before zod sees them', async () => {
    const error = await argsError(connectTool.invoke({ servers: [{ host: 'a', port: Number.NaN }] } as never, execution('connect', {})))
    expect(error.violations).toEqual([expect.objectContaining({ path: 'servers[0].port', keyword: 'json' })])
  })

  test('a getter is read once, by the snapshot: the schema never sees a value that changes', async () => {
    let reads = 0
    const args = {
      servers: [],
      get retries() {
        reads += 1
        return reads === 1 ? 5 : 'five'
      },
    }
    const seen: unknown[] = []
    const tool = defineTool({ name: 'connect', description: 'Connects.', parameters: connect, execute: (checked) => (seen.push(checked.retries), 'ok') })
    await tool.invoke(args as never, execution('connect', args))
    expect(seen).toEqual([5])
    expect(reads).toBe(1)
  })

  test('the registry hook accepts matching arguments and rejects others with the message the model reads', async () => {
    expect(connectTool.validateArguments({ servers: [] })).toEqual({ ok: true })
    const check = connectTool.validateArguments({ servers: 'x' })
    const thrown = await argsError(connectTool.invoke({ servers: 'x' } as never, execution('connect', {})))
    expect(check).toEqual({ ok: false, message: thrown.message })
    expect(thrown.violations[0]?.path).toBe('servers')
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    expect(connectTool.validateArguments(proxy).ok).toBe(false)
  })

  test('presenters get the checked output, and undefined for arguments that do not validate', () => {
    const tool = defineTool({
      name: 'connect',
      description: 'Connects.',
      parameters: connect,
      execute: () => 'ok',
      presentCall: (args) => ({ card: 'generic', title: `connect (${args.retries} retries)` }),
    })
    expect(tool.presentCall?.({ servers: [] })).toEqual({ card: 'generic', title: 'connect (3 retries)' })
    expect(tool.presentCall?.({ servers: 1 })).toBeUndefined()
  })

  test('refinements are kept: their message reaches the model', async () => {
    const tool = defineTool({
      name: 'mail',
      description: 'Sends mail.',
      parameters: z.object({ to: z.string().refine((to) => to.includes('@'), 'must be an address') }),
      execute: () => 'sent',
    })
    const error = await argsError(tool.invoke({ to: 'bob' }, execution('mail', {})))
    expect(error.violations).toEqual([{ path: 'to', segments: ['to'], keyword: 'schema', message: 'must be an address, got the string "bob"' }])
  })

  test('an async refinement is a definition error that says so; nothing is ever run', () => {
    let runs = 0
    const problems = definitionProblems({
      name: 'slow',
      description: 'Checks slowly.',
      parameters: z.object({
        id: z.string().refine(async () => {
          runs += 1
          throw new Error('rejected')
        }),
      }),
      execute: () => 'ok',
    })
    expect(problems).toEqual([expect.stringMatching(/^parameters: the zod schema has an async refinement or check: a tool schema must validate synchronously/)])
    expect(runs).toBe(0)
  })
})

describe('schemas the model cannot be sent are definition errors', () => {
  const base = { name: 'bad', description: 'Bad.', execute: () => 'ok' }

  test('regression: a transform is refused, naming the transform', () => {
    const problems = definitionProblems({ ...base, parameters: z.object({ n: z.string().transform((text) => text.length) }) })
    expect(problems).toEqual([expect.stringMatching(/^parameters: zod cannot convert its output to JSON Schema \(Transforms cannot be represented/)])
  })

  test('a custom (refinement-only) type is refused', () => {
    const problems = definitionProblems({ ...base, parameters: z.object({ n: z.custom<string>((value) => typeof value === 'string') }) })
    expect(problems[0]).toMatch(/^parameters: zod cannot convert its input to JSON Schema \(Custom types cannot be represented/)
    expect(problems[0]).toMatch(/refinements with no JSON Schema form/)
  })

  test('a schema that is not an object is refused for parameters', () => {
    expect(definitionProblems({ ...base, parameters: z.string() })).toEqual([expect.stringMatching(/^parameters: must describe an object/)])
  })

  test('a Standard Schema without JSON Schema is refused, saying what is missing', () => {
    const validateOnly = { '~standard': { version: 1, vendor: 'acme', validate: (value: unknown) => ({ value }) } }
    expect(definitionProblems({ ...base, parameters: validateOnly })).toEqual([expect.stringMatching(/^parameters: a acme schema without Standard JSON Schema/)])
  })

  test('a converter that returns something other than JSON is refused', () => {
    const odd = {
      '~standard': {
        version: 1,
        vendor: 'acme',
        validate: (value: unknown) => ({ value }),
        jsonSchema: { input: () => ({ type: 'object', default: Number.NaN }), output: () => ({ type: 'object' }) },
      },
    }
    expect(definitionProblems({ ...base, parameters: odd })).toEqual([expect.stringMatching(/^parameters: the input JSON Schema acme produced is not lossless JSON/)])
  })
})

describe('a zod schema as output.schema', () => {
  const lookup = defineTool({
    name: 'lookup',
    description: 'Looks a user up.',
    parameters: { id: { type: 'string', required: true } },
    output: {
      schema: z.object({ id: z.string(), tags: z.array(z.string()).default([]) }),
      render: (_args, value) => `${value.id}: ${value.tags.length} tags`,
    },
    execute: (args) => ({ id: args.id }),
  })

  test('the value is validated with zod, its output is the structured content, frozen', async () => {
    const result = await lookup.execute({ id: 'u1' }, execution('lookup', { id: 'u1' }))
    expect(result).toEqual({ content: [{ type: 'text', text: 'u1: 0 tags' }], structuredContent: { id: 'u1', tags: [] } })
    const value = await lookup.invoke({ id: 'u1' }, execution('lookup', { id: 'u1' }))
    expect(Object.isFrozen(value)).toBe(true)
  })

  test('a value the schema rejects is INVALID_TOOL_OUTPUT with our paths', async () => {
    const broken = defineTool({
      name: 'lookup',
      description: 'Looks a user up.',
      parameters: {},
      output: { schema: z.object({ id: z.string() }), render: () => 'x' },
      execute: () => ({ id: 7 }) as never,
    })
    const error = await broken.invoke({}, execution('lookup', {})).then(
      () => undefined,
      (thrown: unknown) => thrown,
    )
    expect(ToolOutputError.isInstance(error)).toBe(true)
    expect((error as ToolOutputError).violations).toEqual([expect.objectContaining({ path: 'id', keyword: 'schema' })])
  })

  test('a transform in output.schema is a definition error at output.schema', () => {
    const problems = definitionProblems({
      name: 'bad',
      description: 'Bad.',
      parameters: {},
      output: { schema: z.string().transform((text) => text.length), render: () => 'x' },
      execute: () => 'ok',
    })
    expect(problems).toEqual([expect.stringMatching(/^output\.schema: zod cannot convert its output to JSON Schema/)])
  })
})
