// A Standard Schema as `output.schema` (zod, valibot, arktype): its output JSON Schema is the definition's
// `outputSchema` (an object schema only, as MCP allows), the structuredContent of a call validates against it under
// ajv, and a value the schema rejects is INVALID_TOOL_OUTPUT with our paths.
import { createToolExecutionToken, type ToolExecution } from '@dsh/tools-core'
import { toStandardJsonSchema } from '@valibot/to-json-schema'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { type } from 'arktype'
import * as v from 'valibot'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { defineTool, type ToolSpec } from './define-tool.js'
import type { ParameterSchemaSpec } from './schema-spec.js'
import type { StandardSchemaWithJsonSchema } from './standard-schema.js'
import { ToolOutputError } from './tool-output-error.js'

function execution(args: unknown): ToolExecution {
  return { callId: 'call_1', name: 'report', arguments: args, token: createToolExecutionToken(), signal: new AbortController().signal }
}

function reportTool(schema: StandardSchemaWithJsonSchema, value: unknown) {
  return defineTool({
    name: 'report',
    description: 'Reports.',
    parameters: {},
    output: { schema, render: () => 'rendered' },
    execute: () => value,
  } as unknown as ToolSpec<ParameterSchemaSpec, StandardSchemaWithJsonSchema>)
}

// One report shape in each library: a count, a list of files, an optional note with a default.
const libraries = {
  zod: {
    report: z.object({ count: z.int().min(0), files: z.array(z.string()), note: z.string().default('none') }),
    scalar: z.string(),
    outputRequired: ['count', 'files', 'note'],
  },
  valibot: {
    report: toStandardJsonSchema(v.object({ count: v.pipe(v.number(), v.integer(), v.minValue(0)), files: v.array(v.string()), note: v.optional(v.string(), 'none') })),
    scalar: toStandardJsonSchema(v.string()),
    // @valibot/to-json-schema 1.8 keeps a defaulted key optional in the output JSON Schema too (looser, not wrong).
    outputRequired: ['count', 'files'],
  },
  arktype: {
    report: type({ count: 'number.integer >= 0', files: 'string[]', note: "string = 'none'" }),
    scalar: type('string'),
    outputRequired: ['count', 'files', 'note'],
  },
} satisfies Record<string, { report: StandardSchemaWithJsonSchema; scalar: StandardSchemaWithJsonSchema; outputRequired: string[] }>

describe.each(Object.entries(libraries))('a %s schema as output.schema', (_vendor, { report, scalar, outputRequired }) => {
  test('its output JSON Schema is the definition outputSchema: an object schema, deep-frozen, without $schema', () => {
    const tool = reportTool(report, { count: 1, files: [] })
    expect(tool.outputSchema).toMatchObject({
      type: 'object',
      properties: { count: { type: 'integer', minimum: 0 }, files: { type: 'array', items: { type: 'string' } }, note: { type: 'string' } },
    })
    // The output side: after the default is applied, `note` is always there.
    expect([...((tool.outputSchema as { required?: string[] }).required ?? [])].sort()).toEqual(outputRequired)
    expect(tool.outputSchema).not.toHaveProperty('$schema')
    expect(Object.isFrozen(tool.outputSchema)).toBe(true)
    expect(Object.isFrozen((tool.outputSchema as unknown as { properties: object }).properties)).toBe(true)
    expect(Object.keys(tool.parameters)).not.toContain('outputSchema')
  })

  test('the structuredContent of a call is the schema output (defaults applied) and validates under ajv against outputSchema', async () => {
    const tool = reportTool(report, { count: 2, files: ['a.ts', 'b.ts'] })
    const validate = new Ajv2020({ strict: false }).compile(tool.outputSchema as object)
    const result = (await tool.execute({}, execution({}))) as { structuredContent: unknown }
    expect(result.structuredContent).toEqual({ count: 2, files: ['a.ts', 'b.ts'], note: 'none' })
    expect(Object.isFrozen(result.structuredContent)).toBe(true)
    expect(validate(result.structuredContent)).toBe(true)
    expect(validate({ count: -1, files: [], note: 'x' })).toBe(false)
  })

  test('a value the schema rejects is INVALID_TOOL_OUTPUT at our path', async () => {
    const tool = reportTool(report, { count: 'two', files: [] })
    const error = await tool.invoke({}, execution({})).then(
      () => undefined,
      (thrown: unknown) => thrown,
    )
    expect(ToolOutputError.isInstance(error)).toBe(true)
    expect((error as ToolOutputError).code).toBe('INVALID_TOOL_OUTPUT')
    expect((error as ToolOutputError).violations).toEqual([expect.objectContaining({ path: 'count', keyword: 'schema', message: expect.stringMatching(/, got the string "two"$/) })])
  })

  test('an output schema that is not an object has no outputSchema, but still yields its structuredContent', async () => {
    const tool = reportTool(scalar, 'done')
    expect(Object.prototype.hasOwnProperty.call(tool, 'outputSchema')).toBe(false)
    const result = (await tool.execute({}, execution({}))) as { structuredContent: unknown }
    expect(result.structuredContent).toBe('done')
  })
})
