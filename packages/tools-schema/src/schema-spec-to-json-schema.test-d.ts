import type { JsonObject, ToolParametersSchema, ToolSchema } from '@dsh/tools-core'
import { expectTypeOf, test } from 'vitest'
import { schemaSpecToJsonSchema, valueSchemaSpecToJsonSchema, type ParametersJsonSchema } from './schema-spec-to-json-schema.js'

test('the emitted parameters schema is a tools-core ToolParametersSchema', () => {
  const parameters = schemaSpecToJsonSchema({ path: { type: 'string', required: true } })
  expectTypeOf(parameters).toEqualTypeOf<ParametersJsonSchema>()
  expectTypeOf(parameters).toExtend<ToolParametersSchema>()
  const schema: ToolSchema = { name: 'read_file', description: 'Read a file.', parameters }
  expectTypeOf(schema.parameters.type).toEqualTypeOf<'object'>()
  expectTypeOf(parameters.required).toEqualTypeOf<string[] | undefined>()
})

test('a value schema is a JSON object', () => {
  expectTypeOf(valueSchemaSpecToJsonSchema({ type: 'string' })).toEqualTypeOf<JsonObject>()
})
