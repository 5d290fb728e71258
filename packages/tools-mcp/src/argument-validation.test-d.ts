import { expectTypeOf, it } from 'vitest'
import { requireFullArgumentValidation, type McpSchemaCheck, type McpServerConfig } from './index.js'

it('requireFullArgumentValidation is a checkSchema, alone or inside another', () => {
  expectTypeOf(requireFullArgumentValidation).toEqualTypeOf<McpSchemaCheck>()
  expectTypeOf({ id: 'fs', command: 'mcp-server-filesystem', checkSchema: requireFullArgumentValidation }).toExtend<McpServerConfig>()
  const mine: McpSchemaCheck = () => []
  expectTypeOf<McpServerConfig['checkSchema']>().toEqualTypeOf<McpSchemaCheck | undefined>()
  expectTypeOf((schema: Parameters<McpSchemaCheck>[0], tool: Parameters<McpSchemaCheck>[1]) => [...mine(schema, tool), ...requireFullArgumentValidation(schema, tool)]).toExtend<McpSchemaCheck>()
})
