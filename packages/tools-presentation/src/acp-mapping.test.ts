import { describe, expect, it } from 'vitest'
import {
  clientSupportsTerminalOutput,
  formatConsoleBlock,
  toAcpContentBlock,
  toAcpSessionNotification,
  toAcpToolCall,
  toAcpToolCallUpdate,
} from './acp-mapping.js'
import { diffCall, diffResult, fileDiff, genericCall, genericResult, terminalCall, terminalResult } from './card-builders.js'
import { PresentationOptionsError } from './presentation-options-error.js'
import { terminalResultFromMeta } from './terminal-result-meta.js'
import { UnknownCardError } from './unknown-card-error.js'

const cwd = '/work/app'
const withTerminal = { cwd, terminalOutput: true }
const withoutTerminal = { cwd, terminalOutput: false }
const ok = { content: [{ type: 'text' as const, text: 'fine' }], isError: false }

describe('clientSupportsTerminalOutput', () => {
  it('reads clientCapabilities._meta.terminal_output', () => {
    expect(clientSupportsTerminalOutput({ terminal: true, _meta: { terminal_output: true } })).toBe(true)
    expect(clientSupportsTerminalOutput({ terminal: true })).toBe(false)
    expect(clientSupportsTerminalOutput({ _meta: { terminal_output: 'yes' } })).toBe(false)
    expect(clientSupportsTerminalOutput({ _meta: null })).toBe(false)
    expect(clientSupportsTerminalOutput(undefined)).toBe(false)
  })
})

describe('toAcpToolCall', () => {
  it('maps a generic card: kind, relative title, content, absolute locations, rawInput, name', () => {
    const view = genericCall({
      title: 'Read /work/app/src/a.ts',
      kind: 'read',
      content: [{ type: 'text', text: 'reading' }],
      locations: [{ path: '/work/app/src/a.ts', line: 4 }, { path: 'docs/b.md' }],
    })
    expect(toAcpToolCall({ toolCallId: 'c1', view, name: 'read_file', rawInput: { path: 'src/a.ts' } }, withoutTerminal)).toEqual({
      sessionUpdate: 'tool_call',
      toolCallId: 'c1',
      title: 'Read src/a.ts',
      name: 'read_file',
      kind: 'read',
      status: 'pending',
      content: [{ type: 'content', content: { type: 'text', text: 'reading' } }],
      locations: [{ path: '/work/app/src/a.ts', line: 4 }, { path: '/work/app/docs/b.md' }],
      rawInput: { path: 'src/a.ts' },
    })
  })

  it('maps the generic fallback card with kind other and its raw input', () => {
    const view = { card: 'generic' as const, title: 'echo', rawInput: { text: 'hi' } }
    expect(toAcpToolCall({ toolCallId: 'c2', view, status: 'in_progress' }, withTerminal)).toEqual({
      sessionUpdate: 'tool_call',
      toolCallId: 'c2',
      title: 'echo',
      kind: 'other',
      status: 'in_progress',
      rawInput: { text: 'hi' },
    })
  })

  it('leaves out raw input that is not lossless JSON', () => {
    const rawInput = { when: new Date(0), size: 10n }
    const update = toAcpToolCall({ toolCallId: 'c3', view: genericCall({ title: 't' }), rawInput }, withTerminal)
    expect(update).not.toHaveProperty('rawInput')
  })

  it('maps a terminal card to a live terminal when the client supports the convention', () => {
    const view = terminalCall({ title: 'npm test', description: 'Run the tests', cwd: 'packages/core' })
    expect(toAcpToolCall({ toolCallId: 'call_7', view, rawInput: { command: 'npm test' } }, withTerminal)).toEqual({
      sessionUpdate: 'tool_call',
      toolCallId: 'call_7',
      title: 'npm test',
      kind: 'execute',
      status: 'pending',
      content: [
        { type: 'content', content: { type: 'text', text: 'Run the tests' } },
        { type: 'terminal', terminalId: 'call_7' },
      ],
      rawInput: { command: 'npm test' },
      _meta: { terminal_info: { terminal_id: 'call_7', cwd: '/work/app/packages/core' } },
    })
    const bare = toAcpToolCall({ toolCallId: 'call_8', view: terminalCall({ title: 'ls' }) }, withTerminal)
    expect(bare._meta).toEqual({ terminal_info: { terminal_id: 'call_8', cwd: '/work/app' } })
    expect(bare.content).toEqual([{ type: 'terminal', terminalId: 'call_8' }])
  })

  it('maps a terminal card to plain content when the client does not support the convention', () => {
    const view = terminalCall({ title: 'ls /work/app/src', description: 'List' })
    const update = toAcpToolCall({ toolCallId: 'c', view }, withoutTerminal)
    expect(update).toEqual({
      sessionUpdate: 'tool_call',
      toolCallId: 'c',
      title: 'ls src',
      kind: 'execute',
      status: 'pending',
      content: [{ type: 'content', content: { type: 'text', text: 'List' } }],
    })
    expect(toAcpToolCall({ toolCallId: 'c', view: terminalCall({ title: 'ls' }) }, { cwd })).not.toHaveProperty('_meta')
  })

  it('maps a diff card to diff content with absolute paths and derived locations', () => {
    const diffs = [fileDiff('/work/app/src/a.ts', 'a\nb\n', 'a\nc\n'), fileDiff('new.txt', null, 'x')]
    const view = diffCall({ title: 'Edit /work/app/src/a.ts', diffs })
    expect(toAcpToolCall({ toolCallId: 'd', view }, withoutTerminal)).toEqual({
      sessionUpdate: 'tool_call',
      toolCallId: 'd',
      title: 'Edit src/a.ts',
      kind: 'edit',
      status: 'pending',
      content: [
        { type: 'diff', path: '/work/app/src/a.ts', oldText: 'a\nb\n', newText: 'a\nc\n' },
        { type: 'diff', path: '/work/app/new.txt', oldText: null, newText: 'x' },
      ],
      locations: [{ path: '/work/app/src/a.ts', line: 2 }, { path: '/work/app/new.txt', line: 1 }],
    })
    const bare = { card: 'diff' as const, title: 'Edit', diffs: [fileDiff('/x/y', 'q', 'r')] }
    const raw = toAcpToolCall({ toolCallId: 'd', view: bare }, withoutTerminal)
    expect(raw.locations).toEqual([{ path: '/x/y', line: 1 }])
  })

  it('keeps the segment rule: a sibling of the cwd stays absolute in the title', () => {
    const view = genericCall({ title: 'Read /work/application/a' })
    expect(toAcpToolCall({ toolCallId: 'x', view }, { cwd }).title).toBe('Read /work/application/a')
  })

  it('throws UNKNOWN_CARD for unknown card kinds and INVALID_CONFIG for a relative cwd', () => {
    expect(() => toAcpToolCall({ toolCallId: 'x', view: { card: 'chart', title: 't' } as never }, { cwd })).toThrow(UnknownCardError)
    try {
      toAcpToolCall({ toolCallId: 'x', view: { card: 'chart', title: 't' } as never }, { cwd })
    } catch (error) {
      expect(error).toMatchObject({ code: 'UNKNOWN_CARD', card: 'chart' })
    }
    const view = genericCall({ title: 't' })
    expect(() => toAcpToolCall({ toolCallId: 'x', view }, { cwd: 'relative' })).toThrow(PresentationOptionsError)
  })
})

describe('toAcpToolCallUpdate', () => {
  it('completes a generic call with the result content, or the card content', () => {
    const call = genericCall({ title: 'echo' })
    expect(toAcpToolCallUpdate({ toolCallId: 'c', call, view: genericResult(), result: ok }, withTerminal)).toEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'c',
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: 'fine' } }],
    })
    const view = genericResult({ title: 'Echoed /work/app/x', content: [{ type: 'text', text: 'card' }] })
    const titled = toAcpToolCallUpdate({ toolCallId: 'c', call, view, result: ok }, withTerminal)
    expect(titled).toMatchObject({ title: 'Echoed x', content: [{ type: 'content', content: { type: 'text', text: 'card' } }] })
  })

  it('marks failures and keeps the call content when the result has none', () => {
    const update = toAcpToolCallUpdate(
      { toolCallId: 'c', call: genericCall({ title: 't' }), view: genericResult(), result: { content: [], isError: true } },
      withoutTerminal,
    )
    expect(update).toEqual({ sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'failed' })
  })

  it('maps a diff result to diff content', () => {
    const diffs = [fileDiff('/work/app/a.ts', 'x', 'y')]
    const call = diffCall({ title: 'Edit', diffs })
    expect(toAcpToolCallUpdate({ toolCallId: 'd', call, view: diffResult({ diffs }), result: ok }, withoutTerminal)).toEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'd',
      status: 'completed',
      content: [{ type: 'diff', path: '/work/app/a.ts', oldText: 'x', newText: 'y' }],
    })
  })

  it('streams a terminal result into the terminal: no content, output and exit in _meta', () => {
    const update = toAcpToolCallUpdate(
      {
        toolCallId: 'call_7',
        call: terminalCall({ title: 'npm test' }),
        view: terminalResult({ output: 'ok\n', exitCode: 1, signal: null, timedOut: false }),
        result: ok,
      },
      withTerminal,
    )
    expect(update).toEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'call_7',
      status: 'completed',
      _meta: {
        terminal_output: { terminal_id: 'call_7', data: 'ok\n' },
        terminal_exit: { terminal_id: 'call_7', exit_code: 1, signal: null },
      },
    })
    expect(update).not.toHaveProperty('content')
  })

  it('reports a signal and an unknown status, and skips empty output', () => {
    const call = terminalCall({ title: 'sleep' })
    const view = terminalResult({ output: '', exitCode: null, signal: 'SIGKILL' })
    const killed = toAcpToolCallUpdate({ toolCallId: 't', call, view, result: ok }, withTerminal)
    expect(killed._meta).toEqual({ terminal_exit: { terminal_id: 't', exit_code: null, signal: 'SIGKILL' } })
    const failed = { content: [{ type: 'text' as const, text: 'spawn failed' }], isError: true }
    const unknown = toAcpToolCallUpdate({ toolCallId: 't', call, view: terminalResult(), result: failed }, withTerminal)
    expect(unknown).toEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: 't',
      status: 'failed',
      _meta: {
        terminal_output: { terminal_id: 't', data: 'spawn failed' },
        terminal_exit: { terminal_id: 't', exit_code: null, signal: null },
      },
    })
  })

  it('gives a fenced console block when the client has no terminal support', () => {
    const update = toAcpToolCallUpdate(
      { toolCallId: 't', call: terminalCall({ title: 'make' }), view: terminalResult({ output: 'built\n', exitCode: 2 }), result: ok },
      withoutTerminal,
    )
    expect(update).toEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: 't',
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: '```console\nbuilt\n```\n\nExited with code 2.' } }],
    })
  })

  it('falls back to generic content when the call was not a terminal card', () => {
    const update = toAcpToolCallUpdate(
      { toolCallId: 't', call: genericCall({ title: 'run' }), view: terminalResult({ output: 'x', exitCode: 0 }), result: ok },
      withTerminal,
    )
    expect(update).not.toHaveProperty('_meta')
    expect(update.content).toEqual([{ type: 'content', content: { type: 'text', text: '```console\nx\n```\n\nExited with code 0.' } }])
  })

  it('carries the exit status from meta even when the output ends with a marker-looking line', () => {
    const result = {
      content: [{ type: 'text' as const, text: 'all good\n[exit code: 3]\n' }],
      isError: false,
      meta: { exitCode: 0, signal: null, timedOut: false },
    }
    const view = terminalResultFromMeta(result)
    const call = terminalCall({ title: 'check' })
    expect(toAcpToolCallUpdate({ toolCallId: 't', call, view, result }, withTerminal)._meta?.terminal_exit).toEqual({
      terminal_id: 't',
      exit_code: 0,
      signal: null,
    })
    const text = toAcpToolCallUpdate({ toolCallId: 't', call, view, result }, withoutTerminal).content
    const fenced = '```console\nall good\n[exit code: 3]\n```\n\nExited with code 0.'
    expect(text).toEqual([{ type: 'content', content: { type: 'text', text: fenced } }])
  })

  it('throws UNKNOWN_CARD for unknown result or call cards', () => {
    const chart = { card: 'chart', title: 't' } as never
    const call = genericCall({ title: 't' })
    const view = genericResult()
    expect(() => toAcpToolCallUpdate({ toolCallId: 't', call, view: chart, result: ok }, withTerminal)).toThrow(UnknownCardError)
    expect(() => toAcpToolCallUpdate({ toolCallId: 't', call: chart, view, result: ok }, withTerminal)).toThrow(UnknownCardError)
  })
})

describe('formatConsoleBlock', () => {
  it('uses a fence longer than any backtick run in the output', () => {
    expect(formatConsoleBlock('```js\nx\n```\n')).toBe('````console\n```js\nx\n```\n````')
    expect(formatConsoleBlock('')).toBe('```console\n```')
  })

  it('states how the command ended', () => {
    expect(formatConsoleBlock('x', { exitCode: null, signal: 'SIGTERM', timedOut: true })).toBe(
      '```console\nx\n```\n\nTimed out; killed by signal SIGTERM.',
    )
    expect(formatConsoleBlock('x', { timedOut: true })).toBe('```console\nx\n```\n\nTimed out.')
    expect(formatConsoleBlock('x', { exitCode: 0, signal: null, timedOut: false })).toBe('```console\nx\n```\n\nExited with code 0.')
  })
})

describe('toAcpContentBlock', () => {
  it('copies every block kind field by field, dropping fields outside the protocol', () => {
    const extra = { type: 'text', text: 'x', internal: true } as never
    expect(toAcpContentBlock(extra)).toEqual({ type: 'text', text: 'x' })
    expect(
      toAcpContentBlock({
        type: 'resource_link',
        uri: 'file:///a',
        name: 'a',
        title: 'A',
        description: 'd',
        mimeType: 'text/plain',
        size: 1,
        annotations: { audience: ['user'], priority: 1, lastModified: '2025-01-01T00:00:00Z' },
      }),
    ).toEqual({
      type: 'resource_link',
      uri: 'file:///a',
      name: 'a',
      title: 'A',
      description: 'd',
      mimeType: 'text/plain',
      size: 1,
      annotations: { audience: ['user'], priority: 1, lastModified: '2025-01-01T00:00:00Z' },
    })
    expect(toAcpContentBlock({ type: 'resource', resource: { uri: 'u', blob: 'AA==', mimeType: 'x/y' } })).toEqual({
      type: 'resource',
      resource: { uri: 'u', blob: 'AA==', mimeType: 'x/y' },
    })
    const audio = { type: 'audio' as const, data: 'AA==', mimeType: 'audio/wav' }
    expect(toAcpContentBlock(audio)).toEqual(audio)
  })
})

describe('toAcpSessionNotification', () => {
  it('wraps an update in session/update params', () => {
    const update = toAcpToolCall({ toolCallId: 'c', view: genericCall({ title: 't' }) }, { cwd })
    expect(toAcpSessionNotification('s1', update)).toEqual({ sessionId: 's1', update })
  })
})
