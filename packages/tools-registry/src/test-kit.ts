// Helpers shared by this package's tests (not part of the package).
import type { Agent, ContentBlock, ToolDefinition, ToolExecutionInput, ToolExecutionResult } from '@dsh/tools-core'
import { Context } from 'cordis'
import { ToolRegistry } from './tool-registry.js'
import type { ToolRegistration } from './tool-record.js'

/** A root context with the registry loaded, and the registry itself. */
export interface Harness {
  readonly ctx: Context
  readonly tools: ToolRegistry
  /** Messages the registry logged (its `warn`s), as text. */
  readonly warnings: string[]
}

/** A fresh `Context` with `ToolRegistry` loaded. */
export async function createHarness(): Promise<Harness> {
  const ctx = new Context()
  await ctx.plugin(ToolRegistry)
  const warnings: string[] = []
  ctx.logger.exporter({
    export(message) {
      if (message.name === 'tools' && message.type === 'warn') warnings.push(message.args.map(String).join(' '))
    },
  })
  return { ctx, tools: ctx.tools, warnings }
}

/** Loads a plugin that needs `tools` and waits until it is active. */
export async function load(ctx: Context, apply: (ctx: Context) => void, name = 'test-plugin'): Promise<{ dispose(): Promise<void> }> {
  const fiber = await ctx.plugin({ name, inject: ['tools'], apply })
  return { dispose: () => fiber.dispose() }
}

/** A text block. */
export function text(value: string): ContentBlock {
  return { type: 'text', text: value }
}

/** A raw tool definition whose body records its calls and returns `[text(name)]` unless `execute` is given. */
export function tool(name: string, overrides: Partial<ToolRegistration> = {}): ToolRegistration & { calls: unknown[] } {
  const calls: unknown[] = []
  return {
    name,
    description: `The ${name} tool.`,
    parameters: { type: 'object', properties: {} },
    async execute(args) {
      calls.push(args)
      return [text(name)]
    },
    ...overrides,
    calls,
  }
}

let nextCallId = 0

/** A call of `name` with a fresh call id. */
export function call(name: string, args: unknown = {}, extra: Partial<ToolExecutionInput> = {}): ToolExecutionInput {
  nextCallId += 1
  return { callId: `call_${nextCallId}`, name, arguments: args, ...extra }
}

/** An agent. */
export function agent(id: string): Agent {
  return { id }
}

/** The text of a result's content. */
export function textOf(result: ToolExecutionResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('')
}

/** True when `value` and everything reachable from it is frozen. */
export function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true
  if (!Object.isFrozen(value)) return false
  return Reflect.ownKeys(value).every((key) => isDeepFrozen((value as Record<string | symbol, unknown>)[key]))
}

/** A definition typed as the registry's input; for tests that need a deliberately wrong one. */
export function raw(value: unknown): ToolDefinition {
  return value as ToolDefinition
}
