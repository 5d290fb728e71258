import type * as acp from '@agentclientprotocol/sdk'
import type {
  CodeCallView,
  CodeResultView,
  CodeSubCall,
  TaskResultView,
  DiffCallView,
  DiffResultView,
  GenericCallView,
  GenericResultView,
  TerminalCallView,
  TerminalResultView,
  ToolCallView,
  ToolDefinition,
  ToolResultView,
} from '@dsh/tools-core'
import { describe, expectTypeOf, it } from 'vitest'
import {
  codeCall,
  codeResult,
  taskResult,
  diffCall,
  diffResult,
  genericCall,
  genericResult,
  presentToolCall,
  presentToolResult,
  readTerminalResultMeta,
  renderToolCall,
  terminalCall,
  terminalResult,
  toAcpSessionNotification,
  toAcpToolCall,
  toAcpToolCallUpdate,
  type AcpContentBlock,
  type CodeCallInput,
  type CodeResultInput,
  type AcpSessionNotification,
  type AcpToolCall,
  type AcpToolCallContent,
  type AcpToolCallLocation,
  type AcpToolCallUpdate,
  type AcpToolKind,
  type PresentableTool,
  type TerminalResultMeta,
} from './index.js'

describe('builders', () => {
  it('return the exact card type of the vocabulary', () => {
    expectTypeOf(genericCall({ title: 't' })).toEqualTypeOf<GenericCallView>()
    expectTypeOf(terminalCall({ title: 't' })).toEqualTypeOf<TerminalCallView>()
    expectTypeOf(diffCall({ title: 't', diffs: [] })).toEqualTypeOf<DiffCallView>()
    expectTypeOf(genericResult()).toEqualTypeOf<GenericResultView>()
    expectTypeOf(terminalResult()).toEqualTypeOf<TerminalResultView>()
    expectTypeOf(diffResult({ diffs: [] })).toEqualTypeOf<DiffResultView>()
  })

  it('reject fields outside the card', () => {
    // @ts-expect-error: a terminal call has no exit code
    terminalCall({ title: 't', exitCode: 0 })
    // @ts-expect-error: kind is one of the ToolCallKind values
    genericCall({ title: 't', kind: 'think' })
  })
})

describe('presenters', () => {
  it('take a ToolDefinition and return cards', () => {
    expectTypeOf<ToolDefinition>().toExtend<PresentableTool>()
    expectTypeOf(presentToolCall).returns.toEqualTypeOf<ToolCallView>()
    expectTypeOf(presentToolResult).returns.toEqualTypeOf<ToolResultView>()
    expectTypeOf(readTerminalResultMeta).returns.toEqualTypeOf<TerminalResultMeta | undefined>()
    expectTypeOf(renderToolCall).returns.toEqualTypeOf<string[]>()
  })
})

describe('ACP types', () => {
  it('are assignable to the SDK schema types', () => {
    expectTypeOf<AcpToolKind>().toExtend<acp.ToolKind>()
    expectTypeOf<AcpContentBlock>().toExtend<acp.ContentBlock>()
    expectTypeOf<AcpToolCallContent>().toExtend<acp.ToolCallContent>()
    expectTypeOf<AcpToolCallLocation>().toExtend<acp.ToolCallLocation>()
    expectTypeOf<AcpToolCall>().toExtend<acp.SessionUpdate>()
    expectTypeOf<AcpToolCallUpdate>().toExtend<acp.SessionUpdate>()
    expectTypeOf<AcpSessionNotification>().toExtend<acp.SessionNotification>()
  })

  it('use no field name the protocol does not know', () => {
    expectTypeOf<keyof AcpToolCall>().toExtend<keyof (acp.ToolCall & { sessionUpdate: 'tool_call' })>()
    expectTypeOf<keyof AcpToolCallUpdate>().toExtend<keyof (acp.ToolCallUpdate & { sessionUpdate: 'tool_call_update' })>()
  })

  it('narrow the mapping results', () => {
    expectTypeOf(toAcpToolCall).returns.toEqualTypeOf<AcpToolCall>()
    expectTypeOf(toAcpToolCallUpdate).returns.toEqualTypeOf<AcpToolCallUpdate>()
    const update = toAcpToolCall({ toolCallId: 'c', view: genericCall({ title: 't' }) }, { cwd: '/w' })
    expectTypeOf(toAcpSessionNotification('s', update)).toEqualTypeOf<AcpSessionNotification<AcpToolCall>>()
  })
})

describe('the task card', () => {
  it('is a result card only, with a typed status', () => {
    const card = taskResult({ taskId: 't', status: 'working' })
    expectTypeOf(card).toEqualTypeOf<TaskResultView>()
    expectTypeOf(card).toExtend<ToolResultView>()
    expectTypeOf<TaskResultView>().not.toExtend<ToolCallView>()
    // @ts-expect-error -- not a task status
    taskResult({ taskId: 't', status: 'done' })
  })
})

describe('the code card', () => {
  it('has a call card and a result card, each built to its own view type', () => {
    const pending = codeCall({ title: 'Sum', language: 'typescript', code: 'return 1' })
    expectTypeOf(pending).toEqualTypeOf<CodeCallView>()
    expectTypeOf(pending).toExtend<ToolCallView>()
    const done = codeResult({ status: 'completed', subCalls: [{ callId: 'c:code:1', name: 'read_file', isError: false }] })
    expectTypeOf(done).toEqualTypeOf<CodeResultView>()
    expectTypeOf(done).toExtend<ToolResultView>()
    expectTypeOf(done.subCalls).toEqualTypeOf<CodeSubCall[]>()
    expectTypeOf<CodeResultView>().not.toExtend<ToolCallView>()
    expectTypeOf<CodeCallView>().not.toExtend<ToolResultView>()
    expectTypeOf<CodeResultInput['subCalls']>().toEqualTypeOf<readonly Readonly<CodeSubCall>[] | undefined>()
    expectTypeOf<CodeCallInput['language']>().toEqualTypeOf<'typescript' | 'javascript'>()
  })

  it('narrows on card, and refuses what is not a language or a status', () => {
    const view = {} as ToolResultView
    if (view.card === 'code') expectTypeOf(view.status).toEqualTypeOf<'completed' | 'error' | 'timeout' | 'memory' | 'aborted'>()
    // A readonly list of records (what code-mode keeps) is accepted as it is.
    const records: readonly { readonly callId: string; readonly name: string; readonly isError: boolean; readonly code?: string }[] = []
    codeResult({ status: 'aborted', subCalls: records })
    // @ts-expect-error -- not a language
    codeCall({ title: 't', language: 'python', code: '' })
    // @ts-expect-error -- the program is required
    codeCall({ title: 't', language: 'typescript' })
    // @ts-expect-error -- not a way a run ends
    codeResult({ status: 'failed' })
    // @ts-expect-error -- a sub-call says whether it failed
    codeResult({ status: 'completed', subCalls: [{ callId: 'c', name: 'n' }] })
  })
})
