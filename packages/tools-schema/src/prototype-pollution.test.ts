// Issue 32, class 1: with Object.prototype polluted, no tool body, validator or output sees a value that came from a
// prototype, whatever schema library the tool uses. Each case defines its tool first (zod and valibot cannot even
// build a schema while `Object.prototype` is polluted), then pollutes `command`, `cwd` and `note` for the call only.
import { toStandardJsonSchema } from '@valibot/to-json-schema'
import { type } from 'arktype'
import * as v from 'valibot'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { defineTool, type DefinedTool } from './define-tool.js'
import { argsError, execution } from './test-support.js'

const prototype = Object.prototype as Record<string, unknown>
const pollution = { command: 'rm -rf /', cwd: '/etc', note: 'planted' }

/** Runs `run` with `Object.prototype` polluted (as an assignment would: enumerable), then cleans up. */
async function polluted<T>(run: () => Promise<T> | T): Promise<T> {
  for (const [key, value] of Object.entries(pollution)) {
    Object.defineProperty(prototype, key, { value, writable: true, configurable: true, enumerable: true })
  }
  try {
    return await run()
  } finally {
    for (const key of Object.keys(pollution)) delete prototype[key]
  }
}

interface Seen {
  command: unknown
  cwd: unknown
  hasCwd: boolean
}

/**
 * A Standard Schema whose `validate` records, for every value it is handed, what reading the missing `cwd` gives
 * (the library's own reads of a missing key are reads like this one).
 */
function watched<Schema extends { readonly '~standard': object }>(schema: Schema, handed: unknown[]): Schema {
  const props = schema['~standard'] as { validate: (value: unknown) => unknown }
  const wrapped = {
    ...props,
    validate(value: unknown) {
      handed.push((value as Record<string, unknown>)['cwd'])
      return props.validate.call(props, value)
    },
  }
  return { '~standard': wrapped } as unknown as Schema
}

/** A `run` tool (required `command`, optional `cwd`) in one schema library, recording what its body and validator saw. */
function runTool(library: string): { tool: DefinedTool<unknown, unknown>; seen: Seen[]; handed: unknown[] } {
  const seen: Seen[] = []
  const handed: unknown[] = []
  const body = (args: Record<string, unknown>) => {
    seen.push({ command: args['command'], cwd: args['cwd'], hasCwd: 'cwd' in args })
    return 'ran'
  }
  const base = { name: 'run', description: 'Runs a command.', execute: body }
  const parameters =
    library === 'DSL'
      ? { command: { type: 'string', required: true }, cwd: { type: 'string' } }
      : library === 'zod'
        ? watched(z.object({ command: z.string(), cwd: z.string().optional() }), handed)
        : library === 'valibot'
          ? watched(toStandardJsonSchema(v.object({ command: v.string(), cwd: v.optional(v.string()) })), handed)
          : watched(type({ command: 'string', 'cwd?': 'string' }), handed)
  return { tool: defineTool({ ...base, parameters } as never) as DefinedTool<unknown, unknown>, seen, handed }
}

// valibot walks its own schema's entries with for…in, which enumerates the polluted keys as if the schema declared
// them: every call is refused (INVALID_ARGS naming them) while the pollution lasts. Fails closed; nothing runs.
const refusesWhilePolluted = (library: string) => library === 'valibot'

describe.each(['DSL', 'zod', 'valibot', 'arktype'])('%s: a polluted Object.prototype never reaches the tool', (library) => {
  test('a required key the model left out is missing (INVALID_ARGS), not the polluted value; the body never runs', async () => {
    const { tool, seen } = runTool(library)
    const error = await polluted(() => argsError(tool.execute({}, execution('run', {})) as Promise<unknown>))
    expect(error.message).toContain('command')
    expect(seen).toEqual([])
    expect(await polluted(() => tool.validateArguments?.({}))).toMatchObject({ ok: false })
  })

  test('an optional key the model left out reads undefined in the body, and `in` says it is absent', async () => {
    const { tool, seen } = runTool(library)
    const call = polluted(() => tool.execute(JSON.parse('{"command":"ls"}'), execution('run', {})))
    if (refusesWhilePolluted(library)) {
      expect((await argsError(call)).message).toMatch(/Invalid key: Expected "(command|cwd|note)"/)
      expect(seen).toEqual([])
      return
    }
    await call
    expect(seen).toEqual([{ command: 'ls', cwd: undefined, hasCwd: false }])
  })

  test('the copy the schema library is handed inherits nothing either', async () => {
    const { tool, handed } = runTool(library)
    const check = await polluted(() => tool.validateArguments?.({ command: 'ls' }))
    expect(check).toEqual(refusesWhilePolluted(library) ? expect.objectContaining({ ok: false }) : { ok: true })
    if (library === 'DSL') return
    expect(handed).toEqual([undefined])
  })
})

describe('outputs: structuredContent and the value render gets inherit nothing', () => {
  const outputs = {
    DSL: { type: 'object', additionalProperties: false, properties: { count: { type: 'integer', required: true }, note: { type: 'string' } } },
    zod: z.object({ count: z.number().int(), note: z.string().optional() }),
    valibot: toStandardJsonSchema(v.object({ count: v.pipe(v.number(), v.integer()), note: v.optional(v.string()) })),
    arktype: type({ count: 'number.integer', 'note?': 'string' }),
  } as const

  test.each(Object.keys(outputs))('%s', async (library) => {
    const rendered: unknown[] = []
    const tool = defineTool({
      name: 'count',
      description: 'Counts.',
      parameters: {},
      output: {
        schema: outputs[library as keyof typeof outputs] as never,
        render: (_args: unknown, value: Record<string, unknown>) => {
          rendered.push(value['note'])
          return `counted ${String(value['count'])}`
        },
      },
      execute: () => ({ count: 3 }),
    } as never) as DefinedTool<unknown, unknown>
    const call = polluted(() => tool.execute({}, execution('count', {})))
    if (refusesWhilePolluted(library)) {
      await expect(call).rejects.toThrow(/Invalid key: Expected "(command|cwd|note)"/)
      return
    }
    const result = (await call) as { structuredContent: Record<string, unknown> }
    expect(result.structuredContent['count']).toBe(3)
    await polluted(() => expect(result.structuredContent['note']).toBeUndefined())
    expect(rendered).toEqual([undefined])
  })
})
