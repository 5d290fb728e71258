import type {
  Agent,
  PostToolDecision,
  PreToolDecision,
  ToolApprovalService,
  ToolDefinition,
  ToolExecution,
  ToolExecutionInput,
  ToolExecutionResult,
  ToolOutputSchema,
  ToolRestriction,
  ToolSchema,
} from '@dsh/tools-core'
import type { Context } from 'cordis'
import { describe, expectTypeOf, it } from 'vitest'
import type {
  ExecuteStepOptions,
  StepCall,
  StepContext,
  TOOL_REGISTRY_DEFAULTS,
  ToolChange,
  ToolExecutionMode,
  ToolRegistry,
  ToolRegistryConfig,
  ToolViewOptions,
  ToolScope,
  ToolStepResult,
} from './index.js'

declare const ctx: Context
declare const agent: Agent

describe('ctx.tools', () => {
  it('is the registry, and ctx.toolApproval the approval seam', () => {
    expectTypeOf(ctx.tools).toEqualTypeOf<ToolRegistry>()
    expectTypeOf(ctx.toolApproval).toEqualTypeOf<ToolApprovalService>()
  })

  it('has the documented API', () => {
    expectTypeOf(ctx.tools.register).returns.toEqualTypeOf<() => void>()
    expectTypeOf(ctx.tools.guard).returns.toEqualTypeOf<() => void>()
    expectTypeOf(ctx.tools.execute).returns.toEqualTypeOf<Promise<ToolExecutionResult>>()
    expectTypeOf(ctx.tools.get).returns.toEqualTypeOf<ToolDefinition | undefined>()
    expectTypeOf(ctx.tools.schemas).returns.toEqualTypeOf<ToolSchema[]>()
    expectTypeOf(ctx.tools.outputSchema).toEqualTypeOf<(name: string, agent?: Agent, options?: ToolViewOptions) => ToolOutputSchema | undefined>()
    expectTypeOf(ctx.tools.schemas).parameter(1).toEqualTypeOf<ToolViewOptions | undefined>()
    expectTypeOf<ToolViewOptions>().toEqualTypeOf<{ readonly nested?: boolean | undefined }>()
    expectTypeOf<ToolRestriction['appliesTo']>().toEqualTypeOf<'all' | 'direct' | undefined>()
    expectTypeOf(ctx.tools.scope(agent).outputSchema).toEqualTypeOf<(name: string) => ToolOutputSchema | undefined>()
    expectTypeOf(ctx.tools.executionMode).returns.toEqualTypeOf<ToolExecutionMode>()
    expectTypeOf(ctx.tools.definitionOf).parameter(0).toEqualTypeOf<Readonly<ToolExecution>>()
    expectTypeOf(ctx.tools.definitionOf).returns.toEqualTypeOf<ToolDefinition | undefined>()
    expectTypeOf(ctx.tools.scope(agent)).toEqualTypeOf<ToolScope>()
    expectTypeOf<ToolExecutionMode>().toEqualTypeOf<'parallel' | 'serial'>()
  })

  it('takes an optional configuration with the abort grace', () => {
    expectTypeOf<ToolRegistryConfig>().toEqualTypeOf<{ readonly abortGraceMs?: number | undefined }>()
    expectTypeOf<ConstructorParameters<typeof ToolRegistry>[1]>().toEqualTypeOf<ToolRegistryConfig | undefined>()
    expectTypeOf<typeof TOOL_REGISTRY_DEFAULTS>().toEqualTypeOf<{ readonly abortGraceMs: number }>()
  })

  it('a scope runs calls without an agent field', () => {
    const scope = ctx.tools.scope(agent)
    expectTypeOf(scope.execute).parameter(0).not.toHaveProperty('agent')
    // @ts-expect-error: the scope decides the agent
    void scope.execute({ callId: 'c', name: 'read', arguments: {}, agent })
  })

  it('register accepts raw definitions and MCP annotations, and rejects wrong shapes', () => {
    ctx.tools.register({
      name: 'read',
      description: 'Read a file.',
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
      annotations: { readOnlyHint: true },
      execute: async () => [{ type: 'text', text: 'x' }],
    })
    // @ts-expect-error: parameters must be an object schema
    ctx.tools.register({ name: 'x', description: '', parameters: { type: 'string' }, execute: async () => [] })
    // @ts-expect-error: execute must return content blocks
    ctx.tools.register({ name: 'x', description: '', parameters: { type: 'object' }, execute: async () => 'text' })
  })
})

describe('typed events', () => {
  it('types tools/pre-execute listeners', () => {
    ctx.on('tools/pre-execute', (exec, next) => {
      expectTypeOf(exec).toEqualTypeOf<Readonly<ToolExecution>>()
      expectTypeOf(next).returns.toEqualTypeOf<Promise<PreToolDecision>>()
      return exec.name === 'bash' ? { kind: 'ask', reason: 'shell' } : next()
    })
    // @ts-expect-error: a deny needs a reason
    ctx.on('tools/pre-execute', () => ({ kind: 'deny' }))
    ctx.on('tools/pre-execute', (exec, next) => {
      // @ts-expect-error: only a tools/execute wrapper may replace the signal
      exec.signal = new AbortController().signal
      return next()
    })
  })

  it('types tools/execute wrappers, which may replace the signal', () => {
    ctx.on('tools/execute', async (exec, next) => {
      expectTypeOf(exec).toEqualTypeOf<ToolExecution>()
      exec.signal = AbortSignal.any([exec.signal])
      return next()
    })
  })

  it('types tools/post-execute, tools/result and tools/change', () => {
    ctx.on('tools/post-execute', (_exec, result, next) => {
      expectTypeOf(result).toEqualTypeOf<ToolExecutionResult>()
      expectTypeOf(next).returns.toEqualTypeOf<Promise<PostToolDecision>>()
      return { kind: 'accept', additionalContext: { content: [{ type: 'text', text: 'note' }] } }
    })
    ctx.on('tools/result', (exec, result) => {
      expectTypeOf(exec).toEqualTypeOf<Readonly<ToolExecution>>()
      expectTypeOf(result).toEqualTypeOf<ToolExecutionResult>()
    })
    ctx.on('tools/change', (change) => {
      expectTypeOf(change).toEqualTypeOf<ToolChange>()
      if (change.type === 'restrict') expectTypeOf(change.agent).toEqualTypeOf<Agent>()
    })
    ctx.tools.on('tools/result', (exec) => {
      expectTypeOf(exec.token).toBeSymbol()
    })
  })
})

describe('executeStep', () => {
  it("takes inputs and a provider parser's parsed calls as they are, and resolves to a step", () => {
    expectTypeOf(ctx.tools.executeStep).returns.toEqualTypeOf<Promise<ToolStepResult>>()
    expectTypeOf(ctx.tools.scope(agent).executeStep).returns.toEqualTypeOf<Promise<ToolStepResult>>()
    // The shape of @dsh/tools-providers' ParsedToolCall, which is not a dependency of this package.
    type ParsedToolCall =
      | { readonly ok: true; readonly callId: string; readonly name: string; readonly providerCallId: string | undefined; readonly input: ToolExecutionInput }
      | { readonly ok: false; readonly callId: string; readonly name: string; readonly providerCallId: string | undefined; readonly result: ToolExecutionResult }
    expectTypeOf<ParsedToolCall>().toMatchTypeOf<StepCall>()
    expectTypeOf<ToolExecutionInput>().toMatchTypeOf<StepCall>()
    expectTypeOf<ExecuteStepOptions['concurrency']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<ToolStepResult['additionalContext'][number]>().toEqualTypeOf<StepContext>()
    expectTypeOf<StepContext>().toMatchTypeOf<{ readonly content: readonly unknown[]; readonly source?: string }>()
    // @ts-expect-error a scope's step runs for its own agent
    void ctx.tools.scope(agent).executeStep([], { agent })
  })
})
