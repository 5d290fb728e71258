import type { PresentableTool } from '@dsh/tools-presentation'
import type { SessionEvent } from '@dsh/tools-testing'
import { describe, expect, it } from 'vitest'
import { createJsonReporter, createTextReporter } from './reporter.js'

const call: SessionEvent = { type: 'tool/call', step: 1, batch: 1, mode: 'serial', callId: 'c1', name: 'flaky', arguments: { a: 1 } }
const failed: SessionEvent = {
  type: 'tool/result',
  step: 1,
  callId: 'c1',
  name: 'flaky',
  result: { callId: 'c1', isError: true, error: { name: 'ToolFailedError', code: 'TOOL_FAILED' }, content: [{ type: 'text', text: 'it broke' }] },
}

describe('createTextReporter', () => {
  it('falls back to the generic cards when a presenter throws, and names the error code', () => {
    const lines: string[] = []
    const flaky: PresentableTool = {
      name: 'flaky',
      presentCall() {
        throw new Error('presenter bug')
      },
      presentResult() {
        throw new Error('presenter bug')
      },
    }
    const reporter = createTextReporter({ write: (line) => lines.push(line), color: false, lookup: () => flaky })
    reporter.event(call)
    reporter.event(failed)
    expect(lines).toEqual(['• flaky  [running]  (c1)', '  input {"a":1}', '• flaky  [failed]', '  it broke', '  ↳ TOOL_FAILED (ToolFailedError)'])
  })

  it('shows unknown tools with the generic card, and colours only when asked', () => {
    const plain: string[] = []
    const coloured: string[] = []
    createTextReporter({ write: (line) => plain.push(line), color: false, lookup: () => undefined }).event(call)
    createTextReporter({ write: (line) => coloured.push(line), color: true, lookup: () => undefined }).event(call)
    expect(plain.join('\n')).not.toContain('\u001b[')
    expect(coloured.join('\n')).toContain('\u001b[')
    const sgr = new RegExp(`${String.fromCharCode(27)}\\[\\d+m`, 'g') // ANSI colour codes
    expect(coloured.join('\n').replace(sgr, '')).toBe(plain.join('\n'))
  })

  it('sums up the session', () => {
    const lines: string[] = []
    const reporter = createTextReporter({ write: (line) => lines.push(line), color: false, lookup: () => undefined })
    reporter.event(call)
    reporter.event(failed)
    reporter.finish({ steps: [], log: [call, failed], stopReason: 'done' })
    expect(lines.at(-1)).toBe('session done: 0 steps, 1 call, 0 ok, 1 failed (TOOL_FAILED)')
  })
})

describe('createJsonReporter', () => {
  it('writes each event as one JSON line and nothing else', () => {
    const lines: string[] = []
    const reporter = createJsonReporter((line) => lines.push(line))
    reporter.start({ workspace: '/w', tools: ['echo'] })
    reporter.turn(1, 'hello')
    reporter.event(call)
    reporter.notice([{ type: 'text', text: 'done' }], { source: { kind: 'plugin', plugin: 'bash' } })
    reporter.finish({ steps: [], log: [call], stopReason: 'done' })
    expect(lines).toEqual([JSON.stringify(call)])
  })
})
