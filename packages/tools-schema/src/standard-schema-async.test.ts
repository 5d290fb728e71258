// Issue 32, classes 2 and 3: every promise a schema library hands back is observed, a schema that turns out to be
// asynchronous is never run again, and a refinement that throws is reported as the throw it is.
import { toStandardJsonSchema } from '@valibot/to-json-schema'
import * as v from 'valibot'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { z } from 'zod'
import { defineTool } from './define-tool.js'
import { definitionProblems } from './test-support.js'

const unhandled: unknown[] = []
const record = (reason: unknown) => unhandled.push(reason)
beforeEach(() => {
  unhandled.length = 0
  process.on('unhandledRejection', record)
})
afterEach(() => {
  process.off('unhandledRejection', record)
})

/** Lets pending rejections settle and Node's unhandled-rejection check run. */
async function settle(): Promise<void> {
  for (let round = 0; round < 3; round += 1) await new Promise((resolve) => setImmediate(resolve))
}

const base = { description: 'Checks.', execute: () => 'ok' }

describe('async schemas: refused, observed, never run again', () => {
  test('zod: .refine(async …) and .check(async …) are definition errors, on parameters and on output', () => {
    const advice = /the zod schema has an async refinement or check: a tool schema must validate synchronously/
    expect(definitionProblems({ ...base, name: 'a', parameters: z.object({ id: z.string().refine(async () => true) }) })).toEqual([
      expect.stringMatching(advice),
    ])
    expect(
      definitionProblems({ ...base, name: 'b', parameters: z.object({ list: z.array(z.object({ n: z.number().check(async () => {}) })) }) }),
    ).toEqual([expect.stringMatching(advice)])
    expect(
      definitionProblems({
        ...base,
        name: 'c',
        parameters: {},
        output: { schema: z.object({ id: z.string().optional().refine(async () => true) }), render: () => 'x' },
      }),
    ).toEqual([expect.stringMatching(/^output\.schema: the zod schema has an async refinement/)])
  })

  test('zod: an async function zod wraps (.superRefine(async …)) is refused at its first call and never run again', async () => {
    let runs = 0
    const tool = defineTool({
      ...base,
      name: 'wrapped',
      parameters: z.object({ id: z.string() }).superRefine(async () => {
        runs += 1
      }),
    })
    const first = tool.validateArguments({ id: 'a' })
    expect(first).toEqual({ ok: false, message: expect.stringMatching(/validates asynchronously .*: a tool schema must validate synchronously/) })
    expect(runs).toBe(1)
    expect(tool.validateArguments({ id: 'b' })).toEqual(first)
    await expect(tool.execute({ id: 'c' }, undefined as never)).rejects.toThrow(/validates asynchronously/)
    expect(runs).toBe(1)
    await settle()
    expect(unhandled).toEqual([])
  })

  test('valibot: an async schema that rejects is refused, its promise observed (no unhandled rejection), and not run again', async () => {
    let runs = 0
    const tool = defineTool({
      ...base,
      name: 'remote',
      parameters: toStandardJsonSchema(
        v.objectAsync({
          id: v.pipeAsync(
            v.string(),
            v.checkAsync(async () => {
              runs += 1
              throw new Error('the lookup failed')
            }),
          ),
        }) as never,
      ),
    })
    expect(tool.validateArguments({ id: 'a' })).toMatchObject({ ok: false, message: expect.stringMatching(/the valibot schema validates asynchronously/) })
    expect(tool.validateArguments({ id: 'b' })).toMatchObject({ ok: false })
    await settle()
    expect(runs).toBe(1)
    expect(unhandled).toEqual([])
  })
})

describe('a refinement that throws is reported as the throw, not as asynchronous validation', () => {
  test('zod: a synchronous throw names the error; the schema keeps running for later calls', () => {
    let runs = 0
    const tool = defineTool({
      ...base,
      name: 'strict',
      parameters: z.object({
        id: z.string().refine(() => {
          runs += 1
          throw new Error('the id service is down')
        }),
      }),
    })
    const check = tool.validateArguments({ id: 'a' })
    expect(check).toEqual({ ok: false, message: expect.stringContaining('the zod schema threw while validating: the id service is down') })
    expect(check.ok ? '' : check.message).not.toMatch(/asynchronously/)
    tool.validateArguments({ id: 'b' })
    expect(runs).toBe(2)
  })
})

describe('render, presentationMeta and converters that return a promise: refused, the promise observed', () => {
  test('an async render or presentationMeta fails the call as the tool\'s fault (ToolOutputError), never an unhandled rejection', async () => {
    for (const [field, spec] of [
      ['render', { schema: { type: 'object', additionalProperties: true }, render: async () => Promise.reject(new Error('render broke')) }],
      [
        'presentationMeta',
        { schema: { type: 'object', additionalProperties: true }, render: () => 'ok', presentationMeta: async () => Promise.reject(new Error('meta broke')) },
      ],
    ] as const) {
      const tool = defineTool({ name: 'out', description: 'Outputs.', parameters: {}, output: spec as never, execute: () => ({}) } as never)
      await expect(tool.execute({}, undefined as never)).rejects.toThrow(`${field}: returned a promise; it must answer synchronously`)
    }
    await settle()
    expect(unhandled).toEqual([])
  })

  test('a Standard JSON Schema converter that returns a rejecting promise is a definition error, the promise observed', async () => {
    const schema = {
      '~standard': {
        version: 1,
        vendor: 'acme',
        validate: (value: unknown) => ({ value }),
        jsonSchema: { input: () => Promise.reject(new Error('later')), output: () => ({ type: 'object' }) },
      },
    }
    expect(definitionProblems({ ...base, name: 'acme', parameters: schema })).toEqual([
      "parameters: acme's input JSON Schema converter returned a promise; it must answer synchronously",
    ])
    await settle()
    expect(unhandled).toEqual([])
  })
})
