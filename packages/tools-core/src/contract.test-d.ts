import { describe, expectTypeOf, it } from 'vitest'
import type {
  Agent,
  CodeResultView,
  ContentBlock,
  ErrorCode,
  ToolErrorCode,
  JsonValue,
  PostToolDecision,
  PreToolDecision,
  ReadonlyJsonValue,
  ToolArgumentsCheck,
  ToolAnnotations,
  ToolApprovalOutcome,
  ToolCallView,
  ToolCardKind,
  ToolDefinition,
  ToolExecution,
  ToolExecutionInput,
  ToolExecutionResult,
  ToolExecutionToken,
  ToolGuard,
  ToolOutputSchema,
  ToolResultView,
  ToolSchema,
} from './index.js'
import { DshError, snapshotJson, deepFreeze, createToolExecutionToken } from './index.js'

describe('contract types', () => {
  it('JsonValue admits JSON and nothing else', () => {
    expectTypeOf<{ a: [1, 'x', null, { b: true }] }>().toExtend<JsonValue>()
    expectTypeOf<undefined>().not.toExtend<JsonValue>()
    expectTypeOf<Date>().not.toExtend<JsonValue>()
    expectTypeOf<() => void>().not.toExtend<JsonValue>()
    expectTypeOf<bigint>().not.toExtend<JsonValue>()
  })

  it('snapshotJson narrows on ok', () => {
    const result = snapshotJson({})
    if (result.ok) expectTypeOf(result.value).toEqualTypeOf<ReadonlyJsonValue>()
    else expectTypeOf(result.error.path).toBeString()
  })

  it('deepFreeze returns a deeply readonly view', () => {
    const frozen = deepFreeze({ a: { b: [1] } })
    expectTypeOf(frozen).toEqualTypeOf<{ readonly a: { readonly b: readonly number[] } }>()
  })

  it('content blocks discriminate on type', () => {
    const block = {} as ContentBlock
    if (block.type === 'image') expectTypeOf(block.mimeType).toBeString()
    if (block.type === 'resource') expectTypeOf(block.resource.uri).toBeString()
    expectTypeOf<{ type: 'video' }>().not.toExtend<ContentBlock>()
  })

  it('decisions are closed unions', () => {
    expectTypeOf<{ kind: 'deny' }>().not.toExtend<PreToolDecision>()
    expectTypeOf<{ kind: 'deny'; reason: 'x' }>().toExtend<PreToolDecision>()
    expectTypeOf<{ kind: 'ask' }>().toExtend<PreToolDecision>()
    expectTypeOf<{ kind: 'block' }>().not.toExtend<PostToolDecision>()
    expectTypeOf<{ kind: 'accept' }>().toExtend<PostToolDecision>()
    expectTypeOf<ToolApprovalOutcome['outcome']>().toEqualTypeOf<'allowed-once' | 'rejected' | 'cancelled' | 'unavailable'>()
  })

  it('post-execute accept may replace or drop content, meta and structuredContent; block has only feedback', () => {
    expectTypeOf<{ kind: 'accept'; meta: undefined; structuredContent: undefined; content: undefined }>().toExtend<PostToolDecision>()
    expectTypeOf<{ kind: 'accept'; meta: { path: string }; structuredContent: [1] }>().toExtend<PostToolDecision>()
    expectTypeOf<Extract<PostToolDecision, { kind: 'block' }>>().not.toHaveProperty('meta')
  })

  it('results carry the canonical value apart from the replayable projections', () => {
    expectTypeOf<ToolExecutionResult>().toHaveProperty('structuredContent')
    expectTypeOf<ToolExecutionResult>().toHaveProperty('meta')
    // presentResult sees only what a replayed log holds.
    expectTypeOf<Parameters<NonNullable<ToolDefinition['presentResult']>>[1]>().not.toHaveProperty('structuredContent')
  })

  it('the validation hook is an optional, synchronous, typed check on the definition', () => {
    expectTypeOf<NonNullable<ToolDefinition['validateArguments']>>().returns.toEqualTypeOf<ToolArgumentsCheck>()
    expectTypeOf<{ ok: true }>().toExtend<ToolArgumentsCheck>()
    expectTypeOf<{ ok: false }>().not.toExtend<ToolArgumentsCheck>()
    expectTypeOf<{ ok: false; message: string }>().toExtend<ToolArgumentsCheck>()
  })

  it('an execution has a frozen identity and always a signal', () => {
    expectTypeOf<ToolExecution['signal']>().toEqualTypeOf<AbortSignal>()
    expectTypeOf<ToolExecution>().toExtend<ToolExecutionInput>()
    expectTypeOf<ToolExecutionInput['signal']>().toEqualTypeOf<AbortSignal | undefined>()
    const exec = {} as ToolExecution
    // @ts-expect-error identity is readonly
    exec.name = 'other'
    // @ts-expect-error identity is readonly
    exec.callId = 'other'
    exec.signal = new AbortController().signal
  })

  it('tokens are opaque symbols', () => {
    expectTypeOf(createToolExecutionToken()).toEqualTypeOf<ToolExecutionToken>()
    expectTypeOf<ToolExecutionToken>().toExtend<symbol>()
    expectTypeOf<symbol>().not.toExtend<ToolExecutionToken>()
  })

  it('a definition is a schema plus behaviour; schemas carry no behaviour', () => {
    expectTypeOf<ToolDefinition>().toExtend<ToolSchema>()
    expectTypeOf<keyof ToolSchema>().toEqualTypeOf<'name' | 'description' | 'parameters'>()
    expectTypeOf<ToolSchema['parameters']['type']>().toEqualTypeOf<'object'>()
    const frozen = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } as const
    expectTypeOf(frozen).toExtend<ToolSchema['parameters']>()
    expectTypeOf<{ type: 'object'; properties: { a: { type: 'string' } } }>().toExtend<ToolSchema['parameters']>()
    expectTypeOf<{ type: 'array' }>().not.toExtend<ToolSchema['parameters']>()
    expectTypeOf<{ type: 'object'; bad: undefined }>().not.toExtend<ToolSchema['parameters']>()
    expectTypeOf<ToolGuard>().returns.toEqualTypeOf<string | undefined>()
    expectTypeOf<ToolExecutionResult['error']>().toEqualTypeOf<{ name: string; code: ErrorCode | ToolErrorCode } | undefined>()
  })

  it('an output schema is an optional object schema of the definition, never a key of the model-facing schema', () => {
    expectTypeOf<ToolDefinition['outputSchema']>().toEqualTypeOf<ToolOutputSchema | undefined>()
    expectTypeOf<'outputSchema'>().not.toExtend<keyof ToolSchema>()
    expectTypeOf<ToolOutputSchema['type']>().toEqualTypeOf<'object'>()
    const frozen = { type: 'object', properties: { total: { type: 'integer' } }, required: ['total'] } as const
    expectTypeOf(frozen).toExtend<ToolOutputSchema>()
    expectTypeOf<{ type: 'string' }>().not.toExtend<ToolOutputSchema>()
    expectTypeOf<{ type: 'object'; bad: () => void }>().not.toExtend<ToolOutputSchema>()
  })

  it('title and annotations are optional display fields of the definition, never keys of the model-facing schema', () => {
    expectTypeOf<ToolDefinition['title']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<ToolDefinition['annotations']>().toEqualTypeOf<ToolAnnotations | undefined>()
    expectTypeOf<'title' | 'annotations'>().not.toExtend<keyof ToolSchema>()
    expectTypeOf<{ readOnlyHint: true; destructiveHint: false; idempotentHint: true; openWorldHint: false }>().toExtend<ToolAnnotations>()
    expectTypeOf<{ readOnlyHint: 'yes' }>().not.toExtend<ToolAnnotations>()
    expectTypeOf<{ title: 1 }>().not.toExtend<ToolAnnotations>()
  })

  it('cards discriminate on card', () => {
    const view = {} as ToolCallView
    if (view.card === 'diff') expectTypeOf(view.diffs[0]!.oldText).toEqualTypeOf<string | null>()
    const result = {} as ToolResultView
    if (result.card === 'terminal') expectTypeOf(result.exitCode).toEqualTypeOf<number | null | undefined>()
    if (view.card === 'code') expectTypeOf(view.language).toEqualTypeOf<'typescript' | 'javascript'>()
    if (result.card === 'code') expectTypeOf(result.subCalls[0]!.code).toEqualTypeOf<string | undefined>()
    expectTypeOf<ToolCardKind>().toEqualTypeOf<'generic' | 'terminal' | 'diff' | 'code'>()
    expectTypeOf<ToolResultView['card']>().toEqualTypeOf<'generic' | 'terminal' | 'diff' | 'task' | 'code'>()
    expectTypeOf<CodeResultView['status']>().toEqualTypeOf<'completed' | 'error' | 'timeout' | 'memory' | 'aborted'>()
  })

  it('agents need only an id', () => {
    expectTypeOf<{ id: string }>().toExtend<Agent>()
    expectTypeOf<{ name: string }>().not.toExtend<Agent>()
  })

  it('error codes are a closed union', () => {
    expectTypeOf<'TOOL_TIMEOUT'>().toExtend<ErrorCode>()
    expectTypeOf<'SOMETHING_ELSE'>().not.toExtend<ErrorCode>()
    // @ts-expect-error unknown code
    void new DshError('SOMETHING_ELSE', 'x')
  })
})

describe('ToolContentError', () => {
  it('takes content blocks and codes, and narrows with isInstance', async () => {
    const { ToolContentError } = await import('./index.js')
    expectTypeOf<ConstructorParameters<typeof ToolContentError>[2]>().toEqualTypeOf<import('./index.js').ToolContentErrorOptions | undefined>()
    expectTypeOf<import('./index.js').ToolContentErrorOptions['content']>().toEqualTypeOf<readonly ContentBlock[] | undefined>()
    const thrown: unknown = undefined
    if (ToolContentError.isInstance(thrown)) expectTypeOf(thrown.content).toEqualTypeOf<readonly ContentBlock[]>()
    // @ts-expect-error a code must be a core code or a tool-owned FAMILY_SUFFIX one
    new ToolContentError('nope', 'x')
    // @ts-expect-error content is blocks, not a string
    new ToolContentError('TOOL_FAILED', 'x', { content: 'text' })
  })
})
