import { Ajv2020 } from 'ajv/dist/2020.js'
import { describe, expect, test } from 'vitest'
import { defineTool, type ToolSpec } from './define-tool.js'
import type { ParameterSchemaSpec, ValueSchemaSpec } from './schema-spec.js'
import { valueSchemaSpecToJsonSchema } from './schema-spec-to-json-schema.js'
import { execution } from './test-support.js'

const reportSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'What was counted.',
  properties: { count: { type: 'integer', required: true }, files: { type: 'array', items: { type: 'string' } } },
} as const satisfies ValueSchemaSpec

function withOutput(schema: ValueSchemaSpec, value: unknown) {
  return defineTool({
    name: 'report',
    description: 'Reports.',
    parameters: {},
    output: { schema, render: () => 'rendered' },
    execute: () => value,
  } as unknown as ToolSpec<ParameterSchemaSpec, ValueSchemaSpec>)
}

describe('defineTool exposes the output schema', () => {
  test('an object output schema is the definition outputSchema: its JSON Schema, deep-frozen, not in the model-facing fields', () => {
    const tool = defineTool({
      name: 'count_files',
      description: 'Count files.',
      parameters: { path: { type: 'string', required: true } },
      output: { schema: reportSchema, render: (_args, value) => `Found ${value.count} files.` },
      execute: () => ({ count: 1, files: ['a.ts'] }),
    })
    expect(tool.outputSchema).toEqual(valueSchemaSpecToJsonSchema(reportSchema))
    expect(tool.outputSchema).toMatchObject({ type: 'object', additionalProperties: false, required: ['count'] })
    expect(Object.isFrozen(tool.outputSchema)).toBe(true)
    expect(Object.isFrozen((tool.outputSchema as unknown as { properties: object }).properties)).toBe(true)
    expect(Object.keys(tool.parameters)).not.toContain('outputSchema')
  })

  test('the structuredContent of a call validates under ajv against the exposed outputSchema, and a wrong value would not', async () => {
    const tool = withOutput(reportSchema, { count: 2, files: ['a.ts', 'b.ts'] })
    const validate = new Ajv2020({ strict: true }).compile(tool.outputSchema as object)
    const result = (await tool.execute({}, execution('report', {}))) as { structuredContent: unknown }
    expect(validate(result.structuredContent)).toBe(true)
    expect(validate({ count: 'two' })).toBe(false)
  })

  test.each<[string, ValueSchemaSpec, unknown]>([
    ['a string', { type: 'string' }, 'done'],
    ['an array', { type: 'array', items: { type: 'integer' } }, [1, 2]],
    ['any JSON', { type: 'json' }, { a: 1 }],
    ['a oneOf of objects', { oneOf: [{ type: 'object', additionalProperties: true }, { type: 'null' }] }, null],
  ])('an output of %s has no outputSchema (MCP allows only objects) but still returns its structuredContent', async (_label, schema, value) => {
    const tool = withOutput(schema, value)
    expect(Object.prototype.hasOwnProperty.call(tool, 'outputSchema')).toBe(false)
    const result = (await tool.execute({}, execution('report', {}))) as { structuredContent: unknown }
    expect(result.structuredContent).toEqual(value)
  })

  test('a tool without output has no outputSchema', () => {
    const tool = defineTool({ name: 'plain', description: 'Plain.', parameters: {}, execute: () => 'ok' })
    expect(Object.prototype.hasOwnProperty.call(tool, 'outputSchema')).toBe(false)
  })
})
