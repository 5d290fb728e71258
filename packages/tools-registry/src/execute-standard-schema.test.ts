// A defineTool tool whose parameters are a zod 4 schema (Standard JSON Schema), through a real registry: its JSON
// Schema is what the model sees, a bad call is INVALID_ARGS (our paths) before any policy through the definition's
// validateArguments hook, and the body gets frozen arguments.
import { toJsonValue } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineTool } from './index.js'
import { call, createHarness, isDeepFrozen, textOf } from './test-kit.js'

function connectTool(seen: unknown[]) {
  return defineTool({
    name: 'connect',
    description: 'Connects to servers.',
    parameters: z.object({
      servers: z.array(z.object({ host: z.string().min(1), port: z.int().min(1).max(65535) })),
      retries: z.int().min(0).default(3),
    }),
    execute(args) {
      seen.push(args)
      return `${args.servers.length} servers, ${args.retries} retries`
    },
  })
}

describe('a zod tool in the registry', () => {
  it('schemas() shows the zod input JSON Schema', async () => {
    const { tools } = await createHarness()
    tools.register(connectTool([]))
    const [schema] = tools.schemas()
    expect(schema?.parameters).toMatchObject({ type: 'object', required: ['servers'], properties: { retries: { type: 'integer', default: 3 } } })
    expect(schema?.parameters).not.toHaveProperty('$schema')
  })

  it('regression: a bad call is INVALID_ARGS with our paths before any listener sees it', async () => {
    const { ctx, tools } = await createHarness()
    const seen: unknown[] = []
    const listened: unknown[] = []
    tools.register(connectTool(seen))
    ctx.on('tools/pre-execute', (exec, next) => (listened.push(exec.arguments), next()))
    const result = await tools.execute(call('connect', { servers: [{ host: '', port: 0 }] }))
    expect(result.isError).toBe(true)
    expect(result.error).toEqual({ name: 'ToolArgsError', code: 'INVALID_ARGS' })
    expect(textOf(result)).toContain('servers[0].host: ')
    expect(textOf(result)).toContain('servers[0].port: Too small')
    expect(textOf(result)).toContain('got the number 0')
    expect(listened).toEqual([])
    expect(seen).toEqual([])
  })

  it('a good call runs the body with zod output (the default applied), deep-frozen', async () => {
    const { tools } = await createHarness()
    const seen: unknown[] = []
    tools.register(connectTool(seen))
    const result = await tools.execute(call('connect', { servers: [{ host: 'a', port: 22 }] }))
    expect(textOf(result)).toBe('1 servers, 3 retries')
    expect(seen).toEqual([{ servers: [{ host: 'a', port: 22 }], retries: 3 }])
    expect(isDeepFrozen(seen[0])).toBe(true)
  })
})

describe('arguments are validated once per call', () => {
  /** A zod schema whose `~standard.validate` counts its calls. */
  function counted(): { schema: z.ZodObject<{ path: z.ZodString }>; validations: () => number } {
    const schema = z.object({ path: z.string() })
    let count = 0
    const props = schema['~standard']
    const validate = props.validate
    Object.defineProperty(schema, 'safeParse', { value: undefined })
    Object.defineProperty(props, 'validate', {
      value: (value: unknown) => {
        count += 1
        return validate.call(props, value)
      },
    })
    return { schema, validations: () => count }
  }

  it('the registry hook validates, and execute takes that parse: one validation per call', async () => {
    const { tools } = await createHarness()
    const { schema, validations } = counted()
    const seen: unknown[] = []
    tools.register(defineTool({ name: 'read', description: 'Reads.', parameters: schema, execute: (args) => (seen.push(args.path), 'ok') }))
    for (const path of ['a', 'b', 'c']) expect((await tools.execute(call('read', { path }))).isError).toBe(false)
    expect(seen).toEqual(['a', 'b', 'c'])
    expect(validations()).toBe(3)
  })

  it('a kept parse serves only the snapshot it was made for, once', async () => {
    const { schema, validations } = counted()
    const seen: unknown[] = []
    const read = defineTool({ name: 'read', description: 'Reads.', parameters: schema, execute: (args) => (seen.push(args.path), 'ok') })
    const a = toJsonValue({ path: 'a' })
    const b = toJsonValue({ path: 'b' })
    expect(read.validateArguments(a)).toEqual({ ok: true })
    await read.execute(b, undefined as never)
    await read.execute(a, undefined as never)
    await read.execute(a, undefined as never)
    expect(seen).toEqual(['b', 'a', 'a'])
    // a validated, b validated by execute, a's kept parse used once, then a validated again.
    expect(validations()).toBe(3)
  })
})
