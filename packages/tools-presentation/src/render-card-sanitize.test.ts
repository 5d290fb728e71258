import { isJsonValue } from '@dsh/tools-core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { diffCall, fileDiff, genericCall, genericResult, terminalCall, terminalResult } from './card-builders.js'
import { renderToolCall, renderToolResult } from './render-card.js'
import { emitLine, tone } from './terminal-line.js'
import { hostileCallView, hostileContent, hostileResultView, hostileString } from './test-kit.js'

/** The renderer's own SGR codes: the only escape sequences its output may hold, and only with colour on. */
// oxlint-disable-next-line no-control-regex
const OWN_SGR = /\u001b\[(?:1|2|22|31|32|33|36|39)m/g
const UNSAFE = /[\p{Cc}\p{Bidi_Control}\p{Zl}\p{Zp}]/u

function expectTerminalSafe(lines: readonly string[], color: boolean): void {
  for (const line of lines) {
    if (!color) expect(line).not.toContain('\u001b')
    expect(line.replace(OWN_SGR, '')).not.toMatch(UNSAFE)
  }
}

const OSC52 = '\u001b]52;c;cHduZWQ=\u0007'
const CLEAR = '\u001b[2J\u001b[3J\u001bc'

describe('every string is sanitized on its way to the terminal', () => {
  it('the killed-by pill does not pass an OSC 52 clipboard write or a screen clear through', () => {
    const view = terminalResult({ exitCode: null, signal: `${OSC52}SIG${CLEAR}KILL\u009d52;c;eA==\u009c` })
    for (const color of [false, true]) {
      const [header = ''] = renderToolResult(view, { color, call: terminalCall({ title: 'sleep 9' }) })
      expectTerminalSafe([header], color)
      expect(header.replace(OWN_SGR, '')).toBe('$ sleep 9  [killed by SIGKILL]')
    }
  })

  it('a signal with a line break stays on the header line', () => {
    const lines = renderToolResult(terminalResult({ signal: 'SIGTERM\n\u001b[1A\u001b[2Kforged line' }), { color: false })
    expect(lines).toEqual(['$ result  [killed by SIGTERM\uFFFDforged line]'])
  })

  it('a carriage return in the signal cannot turn the pill into another status', () => {
    const lines = renderToolResult(terminalResult({ signal: '\rexit 0]   ' }), { color: false })
    expect(lines[0]).toBe('$ result  [killed by exit 0]   ]')
  })

  it('neutralises the same payload in every field of every card', () => {
    const bad = `${OSC52}x${CLEAR}\u202e\u0085\b\u0007`
    const calls = [
      genericCall({
        title: bad,
        rawInput: { [bad]: bad },
        content: [
          { type: 'text', text: bad },
          { type: 'image', data: bad, mimeType: bad },
          { type: 'resource_link', uri: bad, name: bad },
          { type: 'resource', resource: { uri: bad, blob: bad } },
          { type: 'resource', resource: { uri: bad, text: bad } },
        ],
        locations: [{ path: bad, line: 3 }],
      }),
      terminalCall({ title: bad, description: bad, cwd: bad }),
      diffCall({ title: bad, diffs: [fileDiff(bad, bad, `${bad}\n${bad}`), fileDiff(bad, null, bad)] }),
    ]
    const results = [
      genericResult({ title: bad, content: [{ type: 'text', text: bad }] }),
      terminalResult({ title: bad, output: bad, signal: bad }),
      terminalResult({ output: bad, exitCode: 1 }),
    ]
    for (const color of [false, true]) {
      for (const call of calls) {
        const lines = renderToolCall(call, { color })
        expect(lines.join('\n')).toContain('x')
        expectTerminalSafe(lines, color)
      }
      for (const view of results) {
        const result = { content: [{ type: 'text' as const, text: bad }], isError: true }
        expectTerminalSafe(renderToolResult(view, { color, call: calls[1]!, result }), color)
      }
      expectTerminalSafe(renderToolResult(genericResult(), { color, result: { content: [{ type: 'text', text: bad }], isError: false } }), color)
    }
  })

  it('holds for any card whose strings hold any escape or control sequence (property)', () => {
    fc.assert(
      fc.property(
        hostileCallView,
        hostileResultView,
        hostileContent,
        fc.boolean(),
        fc.boolean(),
        (call, view, content, color, isError) => {
          expectTerminalSafe(renderToolCall(call, { color, status: isError ? 'pending' : 'running' }), color)
          expectTerminalSafe(renderToolResult(view, { color, call, result: { content, isError } }), color)
          expectTerminalSafe(renderToolResult(view, { color }), color)
        },
      ),
      { numRuns: 400 },
    )
  })
})

describe('raw input', () => {
  it('a raw input of shared sub-objects is clipped without being expanded', () => {
    // 20 levels: about a million leaves once expanded, within snapshotJson's expanded-size limit.
    let shared: Record<string, unknown> = { leaf: 1 }
    for (let level = 0; level < 20; level += 1) shared = { a: shared, b: shared }
    const lines = renderToolCall(genericCall({ title: 't', rawInput: shared }), { color: false, maxInputChars: 30 })
    expect(lines[1]).toBe(`  input ${'{"a":'.repeat(6)}…`)
  })

  it('a raw input of shared sub-objects past the expanded-size limit is left out, like any non-JSON input', () => {
    let shared: Record<string, unknown> = { leaf: 1 }
    for (let level = 0; level < 60; level += 1) shared = { a: shared, b: shared }
    const lines = renderToolCall(genericCall({ title: 't', rawInput: shared }), { color: false, maxInputChars: 30 })
    expect(lines.some((line) => line.includes('input'))).toBe(false)
    expect(lines[0]).toContain('t')
  })

  it('shows the same JSON as JSON.stringify, clipped (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat({ max: 300 }), (value, max) => {
        const lines = renderToolCall(genericCall({ title: 't', rawInput: value }), { color: false, maxInputChars: max })
        if (!isJsonValue(value)) return
        const json = JSON.stringify(value)
        expect(lines[1]).toBe(`  input ${json.length > max ? `${json.slice(0, max)}…` : json}`)
      }),
      { numRuns: 300 },
    )
  })
})

describe('emitLine', () => {
  it('sanitizes every piece, plain or coloured, and only then adds its own colours', () => {
    expect(emitLine(['a\u001b[31m', tone('red', `b${OSC52}`), '\u0007c'], false)).toBe('ab\uFFFDc')
    expect(emitLine(['a', tone('red', 'b\u001b[0m'), tone('red', 'c'), tone('dim', '')], true)).toBe('a\u001b[31mbc\u001b[39m')
  })

  it('keeps a carriage return inside its own piece: it cannot overwrite the prefix before it', () => {
    expect(emitLine(['  ', tone('dim', '│'), ' ', 'hidden\rshown'], false)).toBe('  │ shownn')
    expect(emitLine(['+', 'abc\r-'], false)).toBe('+-bc')
  })

  it('expands tabs to the next stop instead of writing a control character', () => {
    expect(emitLine(['a\tb', ' ', 'name\tsize'], false)).toBe('a       b name    size')
  })

  it('never writes a control character or a foreign escape sequence (property)', () => {
    const piece = fc.oneof(hostileString, hostileString.map((text) => tone('green', text)))
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 6 }), fc.boolean(), (line, color) => {
        expectTerminalSafe([emitLine(line, color)], color)
      }),
      { numRuns: 500 },
    )
  })
})
