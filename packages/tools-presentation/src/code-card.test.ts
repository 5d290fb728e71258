import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { toAcpToolCall, toAcpToolCallUpdate } from './acp-mapping.js'
import { codeCall, codeResult, genericCall } from './card-builders.js'
import { snapshotToolCallView, snapshotToolResultView } from './card-snapshot.js'
import { InvalidCardError } from './invalid-card-error.js'
import { renderToolCall, renderToolResult } from './render-card.js'
import { hostileString } from './test-kit.js'
import { findToolCallViewIssue, findToolResultViewIssue, isToolCallView, isToolResultView } from './validate-card.js'

const program = [
  "const files = await tools.glob({ pattern: 'src/**/*.ts' })",
  'let total = 0',
  'for (const file of files) {',
  '',
  '  total += (await tools.stat({ path: file })).size',
  '}',
  'console.log(`${files.length} files`)',
  'return total',
].join('\n')

const call = codeCall({ title: 'Sum the sizes of the sources', language: 'typescript', code: program, description: 'Adds up file sizes' })
const subCalls = [
  { callId: 'c1:code:1', name: 'glob', isError: false },
  { callId: 'c1:code:2', name: 'stat', isError: false },
  { callId: 'c1:code:3', name: 'write_file', isError: true, code: 'DENIED' },
]
const ok = { content: [{ type: 'text' as const, text: 'The program completed in 1234 ms.' }], isError: false }

describe('the code card: builders', () => {
  it('build the vocabulary shapes, leaving undefined fields out and copying the sub-calls', () => {
    expect(codeCall({ title: 't', language: 'javascript', code: 'return 1', description: undefined })).toEqual({
      card: 'code',
      title: 't',
      language: 'javascript',
      code: 'return 1',
    })
    expect(codeResult({ status: 'completed' })).toEqual({ card: 'code', status: 'completed', subCalls: [] })
    const input = subCalls.map((entry) => ({ ...entry }))
    const view = codeResult({ title: 'Summed', status: 'error', error: 'TypeError: boom', durationMs: 12, logs: 'l', value: '42', subCalls: input })
    expect(view).toEqual({ card: 'code', title: 'Summed', status: 'error', error: 'TypeError: boom', durationMs: 12, logs: 'l', value: '42', subCalls })
    input[2]!.name = 'changed'
    input.push({ callId: 'x', name: 'x', isError: false })
    expect(view.subCalls).toEqual(subCalls)
    expect(Object.keys(view.subCalls[0]!)).toEqual(['callId', 'name', 'isError'])
    expect(isToolCallView(call)).toBe(true)
    expect(isToolResultView(view)).toBe(true)
  })

  it('throw an InvalidCardError naming the malformed field', () => {
    const cases: [() => unknown, string][] = [
      [() => codeCall({ title: 't', language: 'python' as never, code: '' }), 'language'],
      [() => codeCall({ title: 't', language: 'typescript', code: 1 as never }), 'code'],
      [() => codeCall({ title: 1 as never, language: 'typescript', code: '' }), 'title'],
      [() => codeCall({ title: 't', language: 'typescript', code: '', description: [] as never }), 'description'],
      [() => codeResult({ status: 'done' as never }), 'status'],
      [() => codeResult({ status: 'completed', durationMs: -1 }), 'durationMs'],
      [() => codeResult({ status: 'completed', durationMs: Number.POSITIVE_INFINITY }), 'durationMs'],
      [() => codeResult({ status: 'completed', logs: 3 as never }), 'logs'],
      [() => codeResult({ status: 'completed', value: {} as never }), 'value'],
      [() => codeResult({ status: 'error', error: null as never }), 'error'],
      [() => codeResult({ status: 'completed', subCalls: [null as never] }), 'subCalls[0]'],
      [() => codeResult({ status: 'completed', subCalls: [{ callId: 'c', isError: false } as never] }), 'subCalls[0].name'],
      [() => codeResult({ status: 'completed', subCalls: [{ name: 'n', isError: false } as never] }), 'subCalls[0].callId'],
      [() => codeResult({ status: 'completed', subCalls: [{ callId: 'c', name: 'n', isError: 'yes' } as never] }), 'subCalls[0].isError'],
      [() => codeResult({ status: 'completed', subCalls: [{ callId: 'c', name: 'n', isError: true, code: 7 } as never] }), 'subCalls[0].code'],
    ]
    for (const [build, path] of cases) {
      let thrown: unknown
      try {
        build()
      } catch (error) {
        thrown = error
      }
      expect(thrown, path).toBeInstanceOf(InvalidCardError)
      expect((thrown as InvalidCardError).path).toBe(path)
      expect((thrown as InvalidCardError).card).toBe('code')
    }
  })

  it('are checked by phase: the call card needs a title and code, the result card its sub-calls', () => {
    expect(findToolCallViewIssue({ card: 'code', language: 'typescript', code: '' })?.path).toBe('title')
    expect(findToolCallViewIssue({ card: 'code', title: 't', language: 'typescript' })?.path).toBe('code')
    expect(findToolResultViewIssue({ card: 'code', status: 'completed' })?.path).toBe('subCalls')
    // A result card is no call card, and the other way round.
    expect(findToolCallViewIssue(codeResult({ status: 'completed' }))).toBeInstanceOf(InvalidCardError)
    expect(findToolResultViewIssue(call)?.path).toBe('status')
  })
})

describe('the code card: snapshots', () => {
  it('are detached, deep-frozen, lossless JSON copies of the fields the vocabulary knows', () => {
    const source = { ...codeResult({ status: 'timeout', durationMs: 30_000, subCalls }), secret: 'x', toJSON: () => 'no' }
    const snapshot = snapshotToolResultView(source)
    if (!snapshot.ok) throw snapshot.error
    expect(snapshot.view).toEqual({ card: 'code', status: 'timeout', durationMs: 30_000, subCalls })
    expect(Object.isFrozen(snapshot.view)).toBe(true)
    expect(Object.isFrozen((snapshot.view as { subCalls: object[] }).subCalls[0])).toBe(true)
    expect(JSON.parse(JSON.stringify(snapshot.view))).toEqual(snapshot.view)
    source.subCalls[0]!.name = 'changed'
    expect((snapshot.view as { subCalls: { name: string }[] }).subCalls[0]!.name).toBe('glob')

    const pending = snapshotToolCallView({ ...call, extra: 1 })
    expect(pending.ok && pending.view).toEqual(call)
    expect(pending.ok && Object.isFrozen(pending.view)).toBe(true)
  })

  it('turn a sub-call list that cannot be read into an InvalidCardError, never a throw', () => {
    const hostile = { card: 'code', status: 'completed', subCalls: [{ callId: 'c', get name(): string { throw new Error('trap') }, isError: false }] }
    const snapshot = snapshotToolResultView(hostile)
    expect(snapshot.ok).toBe(false)
    expect(!snapshot.ok && snapshot.error).toBeInstanceOf(InvalidCardError)
    expect(!snapshot.ok && (snapshot.error as InvalidCardError).path).toBe('subCalls[0].name')
  })
})

describe('the code card: terminal rendering', () => {
  it('a call shows the title, the description and the program numbered, bounded by maxCodeLines', () => {
    expect(renderToolCall(call, { color: false, maxCodeLines: 5 })).toEqual([
      '$ Sum the sizes of the sources  [running]',
      '  Adds up file sizes',
      '  typescript, 8 lines',
      "  1 │ const files = await tools.glob({ pattern: 'src/**/*.ts' })",
      '  2 │ let total = 0',
      '  3 │ for (const file of files) {',
      '  4 │',
      '  5 │   total += (await tools.stat({ path: file })).size',
      '  … 3 more lines',
    ])
    const long = renderToolCall(codeCall({ title: 'Loop', language: 'javascript', code: 'x\n'.repeat(12) }), { color: false })
    expect(long.slice(1, 3)).toEqual(['  javascript, 12 lines', '   1 │ x'])
    expect(long.at(-1)).toBe('  12 │ x')
  })

  it('a call in colour: the line numbers dim, the program itself plain', () => {
    const lines = renderToolCall(codeCall({ title: 'T', language: 'typescript', code: 'return 1' }), { color: true })
    expect(lines).toEqual([
      '\u001b[36m$\u001b[39m \u001b[1mT\u001b[22m  \u001b[36m[running]\u001b[39m',
      '  \u001b[2mtypescript, 1 line\u001b[22m',
      '  \u001b[2m1 │\u001b[22m return 1',
    ])
  })

  it('a result shows the status pill, duration and count, the error, one line per sub-call, then the logs and value tails', () => {
    const view = codeResult({ status: 'error', error: 'TypeError: x is not a function (line 3)', durationMs: 1234, logs: 'one\ntwo\nthree', value: '42', subCalls })
    expect(renderToolResult(view, { color: false, call, result: { ...ok, isError: true }, tailLines: 2 })).toEqual([
      '$ Sum the sizes of the sources  [code error]',
      '  1.2 s · 3 sub-calls, 1 failed',
      '  TypeError: x is not a function (line 3)',
      '  ✓ glob',
      '  ✓ stat',
      '  ✗ write_file DENIED',
      '  logs',
      '  … 1 earlier line',
      '  │ two',
      '  │ three',
      '  value',
      '  │ 42',
    ])
  })

  it('a result in colour: green for completed and ok sub-calls, red for failures, yellow for aborted', () => {
    const view = codeResult({ status: 'completed', subCalls })
    expect(renderToolResult(view, { color: true, call, result: ok })).toEqual([
      '\u001b[36m$\u001b[39m \u001b[1mSum the sizes of the sources\u001b[22m  \u001b[32m[code completed]\u001b[39m',
      '  \u001b[2m3 sub-calls, 1 failed\u001b[22m',
      '  \u001b[32m✓\u001b[39m glob',
      '  \u001b[32m✓\u001b[39m stat',
      '  \u001b[31m✗\u001b[39m write_file \u001b[31mDENIED\u001b[39m',
    ])
    const pill = (status: 'error' | 'timeout' | 'memory' | 'aborted'): string =>
      renderToolResult(codeResult({ status }), { color: true, call })[0]!
    for (const status of ['error', 'timeout', 'memory'] as const) expect(pill(status)).toContain(`\u001b[31m[code ${status}]\u001b[39m`)
    expect(pill('aborted')).toContain('\u001b[33m[code aborted]\u001b[39m')
  })

  it('lists the first maxSubCalls sub-calls and counts the rest, with their failures', () => {
    const many = Array.from({ length: 25 }, (_, index) => ({ callId: `c:code:${index + 1}`, name: `t${index + 1}`, isError: index >= 22 }))
    const lines = renderToolResult(codeResult({ status: 'completed', durationMs: 340, subCalls: many }), { color: false, call, maxSubCalls: 20 })
    expect(lines[1]).toBe('  340 ms · 25 sub-calls, 3 failed')
    expect(lines).toHaveLength(2 + 20 + 1)
    expect(lines.at(-1)).toBe('  … 5 more sub-calls (3 failed)')
    expect(renderToolResult(codeResult({ status: 'completed', subCalls: many }), { color: false, maxSubCalls: 0 })).toEqual([
      '$ result  [code completed]',
      '  25 sub-calls, 3 failed',
      '  … 25 more sub-calls (3 failed)',
    ])
  })

  it('a run without sub-calls, logs or value; a failed sub-call without a code; a long duration', () => {
    const view = codeResult({ status: 'timeout', durationMs: 125_400, logs: '', subCalls: [{ callId: 'c', name: 'fetch', isError: true }] })
    expect(renderToolResult(view, { color: false, call })).toEqual([
      '$ Sum the sizes of the sources  [code timeout]',
      '  2 min 5 s · 1 sub-call, 1 failed',
      '  ✗ fetch',
    ])
    expect(renderToolResult(codeResult({ status: 'aborted', title: 'Stopped' }), { color: false })).toEqual(['$ Stopped  [code aborted]', '  no sub-calls'])
  })

  it('sanitizes every string of the card: a sub-call name or code cannot move the cursor or recolour the line', () => {
    const view = codeResult({
      status: 'completed',
      logs: 'log \u001b[2J',
      value: '\u001b]52;c;eA==\u0007v',
      subCalls: [{ callId: 'c', name: 'x\u001b[31m\rDONE', isError: true, code: 'DENIED\u001b[0m\n' }],
    })
    for (const color of [true, false]) {
      for (const line of renderToolResult(view, { color })) {
        // oxlint-disable-next-line no-control-regex
        expect(line.replace(/\u001b\[(?:1|2|22|31|32|33|36|39)m/g, '')).not.toMatch(/[\p{Cc}]/u)
      }
    }
    const code = renderToolCall(codeCall({ title: 't', language: 'typescript', code: 'a\u001b[2Jb\rc' }), { color: false })
    expect(code[2]).not.toContain('\u001b')
  })

  it('validates its new limits like the others', () => {
    expect(() => renderToolCall(call, { maxCodeLines: -1 })).toThrow(RangeError)
    expect(() => renderToolResult(codeResult({ status: 'completed' }), { maxSubCalls: 1.5 })).toThrow(RangeError)
  })
})

describe('the code card: ACP mapping', () => {
  const cwd = '/work/app'

  it('a call is an execute tool call holding the description and the program in a ts fence', () => {
    expect(toAcpToolCall({ toolCallId: 'c1', view: call, name: 'run_code', rawInput: { code: program } }, { cwd })).toEqual({
      sessionUpdate: 'tool_call',
      toolCallId: 'c1',
      title: 'Sum the sizes of the sources',
      kind: 'execute',
      status: 'pending',
      name: 'run_code',
      content: [
        { type: 'content', content: { type: 'text', text: 'Adds up file sizes' } },
        { type: 'content', content: { type: 'text', text: `\`\`\`ts\n${program}\n\`\`\`` } },
      ],
      rawInput: { code: program },
    })
    const js = toAcpToolCall({ toolCallId: 'c', view: codeCall({ title: 'T', language: 'javascript', code: 'x\n```\ny' }) }, { cwd })
    expect(js.content).toEqual([{ type: 'content', content: { type: 'text', text: '````js\nx\n```\ny\n````' } }])
  })

  it('a result keeps the program and adds the status line, the error, the sub-call list, the logs and the value', () => {
    const view = codeResult({ status: 'error', error: 'TypeError: *x* is not a function', durationMs: 1234, logs: 'a\nb', value: '42', subCalls })
    const update = toAcpToolCallUpdate({ toolCallId: 'c1', call, view, result: { ...ok, isError: true } }, { cwd })
    const text = (value: string) => ({ type: 'content', content: { type: 'text', text: value } })
    expect(update).toEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'c1',
      status: 'failed',
      content: [
        text(`\`\`\`ts\n${program}\n\`\`\``),
        text('The program failed with an error (1.2 s, 3 sub-calls, 1 failed).\n\nTypeError: \\*x\\* is not a function'),
        text('Sub-calls:\n\n- ✓ `glob`\n- ✓ `stat`\n- ✗ `write_file` DENIED'),
        text('Logs:\n\n```text\na\nb\n```'),
        text('Returned:\n\n```text\n42\n```'),
      ],
    })
  })

  it('a result after another card, without sub-calls, logs or value; a failed sub-call without a code', () => {
    const bare = toAcpToolCallUpdate(
      { toolCallId: 'c', call: genericCall({ title: 'run_code' }), view: codeResult({ status: 'completed', title: 'Done', logs: '' }), result: ok },
      { cwd },
    )
    expect(bare).toEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'c',
      status: 'completed',
      title: 'Done',
      content: [{ type: 'content', content: { type: 'text', text: 'The program completed (no sub-calls).' } }],
    })
    const statuses = { timeout: 'timed out', memory: 'ran out of memory', aborted: 'was aborted' } as const
    for (const [status, words] of Object.entries(statuses)) {
      const update = toAcpToolCallUpdate(
        { toolCallId: 'c', call: genericCall({ title: 'x' }), view: codeResult({ status: status as keyof typeof statuses, subCalls: [{ callId: 'c', name: 'n', isError: true }] }), result: ok },
        { cwd },
      )
      expect(update.content).toEqual([
        { type: 'content', content: { type: 'text', text: `The program ${words} (1 sub-call, 1 failed).` } },
        { type: 'content', content: { type: 'text', text: 'Sub-calls:\n\n- ✗ `n` failed' } },
      ])
    }
  })

  it('nothing from the program, the logs or the value leaves its fence; names and codes add no Markdown (property)', () => {
    fc.assert(
      fc.property(hostileString, hostileString, hostileString, hostileString, (code, logs, name, errorCode) => {
        const pending = codeCall({ title: 't', language: 'typescript', code })
        const started = toAcpToolCall({ toolCallId: 'c', view: pending }, { cwd })
        const programText = (started.content![0] as { content: { text: string } }).content.text
        expect(readFence(programText)).toEqual({ info: 'ts', content: code.replace(/\r\n|\r/g, '\n').replace(/\n$/, ''), rest: [] })
        const view = codeResult({ status: 'completed', logs, subCalls: [{ callId: 'c', name, isError: true, code: errorCode }] })
        const update = toAcpToolCallUpdate({ toolCallId: 'c', call: pending, view, result: ok }, { cwd })
        const items = (update.content ?? []).map((item) => (item as { content: { text: string } }).content.text)
        const list = items.find((item) => item.startsWith('Sub-calls:'))!.split(/\r\n|\r|\n/)
        // One list item, on one line, whatever the name and code hold.
        expect(list).toHaveLength(3)
        expect(list[2]).toMatch(/^- ✗ `/)
        const logItem = items.find((item) => item.startsWith('Logs:'))
        if (logs.length > 0) expect(readFence(logItem!.slice('Logs:\n\n'.length)).rest).toEqual([])
      }),
      { numRuns: 300 },
    )
  })
})

/** A fenced block read the CommonMark way: the first line closing the opening fence ends it. */
function readFence(markdown: string): { info: string; content: string; rest: string[] } {
  const lines = markdown.split(/\r\n|\r|\n/)
  const open = /^(`{3,})([^`]*)$/.exec(lines[0] ?? '')
  if (open === null) throw new Error(`no opening fence: ${JSON.stringify(lines[0])}`)
  const closing = new RegExp(`^ {0,3}\`{${open[1]!.length},}[ \\t]*$`)
  const close = lines.findIndex((line, index) => index > 0 && closing.test(line))
  if (close === -1) throw new Error('the fence is never closed')
  return { info: open[2]!, content: lines.slice(1, close).join('\n'), rest: lines.slice(close + 1) }
}
