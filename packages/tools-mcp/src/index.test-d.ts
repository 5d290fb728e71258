import type { Client } from '@modelcontextprotocol/client'
import type { Context } from 'cordis'
import { expectTypeOf, it } from 'vitest'
import {
  apply,
  mcpServerStatus,
  MCP_ERROR_CODES,
  type McpCallResult,
  type McpListenEvent,
  type McpServerConfig,
  type McpServerStatus,
  type McpTaskConfig,
  type McpToolDefinition,
  type PlannedTool,
} from './index.js'

it('takes a config with an id and a command or url, and types its status', () => {
  expectTypeOf(apply).parameter(1).toEqualTypeOf<McpServerConfig>()
  expectTypeOf<{ id: 'fs'; command: 'mcp-server-filesystem'; args: ['/tmp'] }>().toMatchTypeOf<McpServerConfig>()
  expectTypeOf<{ id: 'fs'; trust: 'yes' }>().not.toMatchTypeOf<McpServerConfig>()
  expectTypeOf(mcpServerStatus).returns.toEqualTypeOf<McpServerStatus | undefined>()
  expectTypeOf<McpServerStatus['state']>().toEqualTypeOf<'connecting' | 'ready' | 'restarting' | 'suspended' | 'closed'>()
})

it('declares the mcp/ events on cordis', () => {
  const listen = (ctx: Context) => ctx.on('mcp/progress', (event) => expectTypeOf(event.progress).toEqualTypeOf<number>())
  expectTypeOf(listen).returns.toMatchTypeOf<() => void>()
})

it('types the listen stream in the status and its mcp/listen event', () => {
  expectTypeOf<NonNullable<McpServerStatus['listen']>['state']>().toEqualTypeOf<'opening' | 'open' | 'reopening' | 'unsupported' | 'closed'>()
  expectTypeOf<McpListenEvent['kind']>().toEqualTypeOf<'opened' | 'reopened' | 'closed' | 'failed' | 'unsupported'>()
  const listen = (ctx: Context) => ctx.on('mcp/listen', (event) => expectTypeOf(event).toEqualTypeOf<McpListenEvent>())
  expectTypeOf(listen).returns.toMatchTypeOf<() => void>()
  expectTypeOf<{ id: 'web'; url: 'http://127.0.0.1:1/mcp'; minListTtlMs: 5000 }>().toMatchTypeOf<McpServerConfig>()
})

it('keeps codes literal', () => {
  expectTypeOf(MCP_ERROR_CODES.RESULT_TOO_LARGE).toMatchTypeOf<'MCP_RESULT_TOO_LARGE'>()
  expectTypeOf(MCP_ERROR_CODES.TOOL_QUARANTINED).toMatchTypeOf<'MCP_TOOL_QUARANTINED'>()
  expectTypeOf(MCP_ERROR_CODES.SERVER_UNLOADED).toMatchTypeOf<'MCP_SERVER_UNLOADED'>()
  expectTypeOf(MCP_ERROR_CODES.TASK_CANCELLED).toMatchTypeOf<'MCP_TASK_CANCELLED'>()
})

it('types the tasks config and the task support of a plan', () => {
  expectTypeOf<McpServerConfig['tasks']>().toEqualTypeOf<McpTaskConfig | undefined>()
  expectTypeOf<NonNullable<McpTaskConfig['taskOnly']>>().toEqualTypeOf<'optional' | 'required'>()
  expectTypeOf<{ id: 'x'; command: 'y'; tasks: { foregroundMs: 5000; taskOnly: 'required' } }>().toMatchTypeOf<McpServerConfig>()
  expectTypeOf<{ id: 'x'; command: 'y'; tasks: { taskOnly: 'forbidden' } }>().not.toMatchTypeOf<McpServerConfig>()
  expectTypeOf<PlannedTool['taskSupport']>().toEqualTypeOf<'optional' | 'required' | undefined>()
})

it("matches the SDK's own tool and result shapes (structural types, no SDK import at run time)", () => {
  type SdkTool = Awaited<ReturnType<Client['listTools']>>['tools'][number]
  type SdkResult = Awaited<ReturnType<Client['callTool']>>
  expectTypeOf<SdkTool['name']>().toEqualTypeOf<McpToolDefinition['name']>()
  expectTypeOf<SdkResult['isError']>().toMatchTypeOf<McpCallResult['isError']>()
})
