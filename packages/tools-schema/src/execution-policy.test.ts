import { snapshotJson } from '@dsh/tools-core'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { defineTool } from './define-tool.js'
import { definitionProblems, execution } from './test-support.js'

const base = { name: 'slow_job', description: 'Runs a slow job.', parameters: { size: { type: 'integer', required: true } }, execute: () => 'ok' }

describe('execution: how calls may run as tasks', () => {
  test('is copied onto the definition, frozen, and never sent to the model', () => {
    const tool = defineTool({ ...base, parameters: { size: { type: 'integer', required: true } }, execution: { background: 'required', maxRuntimeMs: 60_000 } })
    expect(tool.execution).toEqual({ background: 'required', maxRuntimeMs: 60_000 })
    expect(Object.isFrozen(tool.execution)).toBe(true)
    expect(JSON.stringify(tool.parameters)).not.toContain('background')
    expect(defineTool({ ...base, parameters: {} }).execution).toBeUndefined()
  })

  test('reports every wrong field, with its path', () => {
    expect(definitionProblems({ ...base, execution: { background: 'later', autoBackgroundAfterMs: -1, maxRuntimeMs: 1.5, when: 1 } })).toEqual([
      "execution.background: must be 'forbidden', 'optional' or 'required', got the string \"later\"",
      'execution.autoBackgroundAfterMs: must be a positive integer of milliseconds ≤ 2147483647, got the number -1',
      'execution.maxRuntimeMs: must be a positive integer of milliseconds ≤ 2147483647, got the number 1.5',
      'execution.when: unknown field "when" (allowed: background, autoBackgroundAfterMs, maxRuntimeMs)',
    ])
    expect(definitionProblems({ ...base, execution: 'background' })[0]).toMatch(/^execution: must be an object/)
    expect(definitionProblems({ ...base, execution: { autoBackgroundAfterMs: 500 } })).toEqual([
      "execution.autoBackgroundAfterMs: needs background: 'optional' or 'required' (a forbidden background never moves a call there)",
    ])
  })

  test("'optional' adds a run_in_background boolean the model may set, which the body never sees", async () => {
    const seen: unknown[] = []
    const tool = defineTool({
      ...base,
      parameters: { size: { type: 'integer', required: true } },
      execution: { background: 'optional' },
      execute: (args) => {
        seen.push(args)
        return `size ${args.size}`
      },
    })
    const properties = (tool.parameters as unknown as { properties: Record<string, unknown> }).properties
    expect(Object.keys(properties)).toEqual(['size', 'run_in_background'])
    expect(properties['run_in_background']).toMatchObject({ type: 'boolean' })
    const args = snapshotJson({ size: 3, run_in_background: true })
    if (!args.ok) throw new Error('snapshot')
    expect(tool.validateArguments(args.value)).toEqual({ ok: true })
    expect(await tool.execute(args.value, execution('slow_job', args.value))).toEqual([{ type: 'text', text: 'size 3' }])
    expect(seen).toEqual([{ size: 3 }])
    // Absent, it is simply not there; wrong, it is the model's to fix, like any argument.
    expect(tool.validateArguments({ size: 3 })).toEqual({ ok: true })
    const wrong = tool.validateArguments({ size: 3, run_in_background: 'yes' })
    expect(wrong.ok).toBe(false)
    expect(!wrong.ok && wrong.message).toContain('run_in_background: must be a boolean, got the string "yes"')
    // The tool's own rules still hold for the rest.
    expect(tool.validateArguments({ run_in_background: true }).ok).toBe(false)
  })

  test("'optional' works with a Standard Schema's parameters too", async () => {
    const tool = defineTool({
      name: 'fetch_all',
      description: 'Fetches every page.',
      parameters: z.object({ pages: z.number().int() }).strict(),
      execution: { background: 'optional', autoBackgroundAfterMs: 2_000 },
      execute: (args) => `pages ${args.pages} ${JSON.stringify(args)}`,
    })
    expect(Object.keys((tool.parameters as unknown as { properties: object }).properties)).toEqual(['pages', 'run_in_background'])
    const args = snapshotJson({ pages: 2, run_in_background: false })
    if (!args.ok) throw new Error('snapshot')
    expect(tool.validateArguments(args.value)).toEqual({ ok: true })
    expect(await tool.execute(args.value, execution('fetch_all', args.value))).toEqual([{ type: 'text', text: 'pages 2 {"pages":2}' }])
  })

  test('a parameter of the same name is refused, naming why', () => {
    expect(definitionProblems({ ...base, parameters: { run_in_background: { type: 'boolean' } }, execution: { background: 'optional' } })).toEqual([
      "parameters.run_in_background: is reserved by execution.background 'optional', which adds it (rename the parameter, or drop 'optional')",
    ])
    // Without 'optional' the name is the tool's own.
    expect(defineTool({ ...base, parameters: { run_in_background: { type: 'boolean' } }, execution: { background: 'required' } }).execution?.background).toBe(
      'required',
    )
  })
})
