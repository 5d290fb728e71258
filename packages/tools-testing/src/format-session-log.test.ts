import { describe, expect, it } from 'vitest'
import { contentText, formatSessionLog, type SessionEvent } from './index.js'
import { text } from './test-kit.js'

describe('formatSessionLog', () => {
  it('indents multi-line text, shows non-text blocks by type, and survives arguments that are not JSON', () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    const log: SessionEvent[] = [
      { type: 'tool/call', step: 1, batch: 1, mode: 'serial', callId: 'c1', name: 'bash', arguments: cyclic },
      {
        type: 'tool/result',
        step: 1,
        callId: 'c1',
        name: 'bash',
        result: { callId: 'c1', content: [text('line 1\nline 2'), { type: 'image', data: 'AA==', mimeType: 'image/png' }], isError: false },
      },
      { type: 'tool/call', step: 2, batch: 1, mode: 'serial', callId: 'c2', name: 'x', arguments: undefined },
      { type: 'tool/result', step: 2, callId: 'c2', name: 'x', result: { callId: 'c2', content: [text('no code')], isError: true } },
      { type: 'context/message', step: 2, callId: 'c2', content: [text('hint')] },
    ]
    expect(formatSessionLog(log)).toBe(
      [
        'step 1',
        '  tool/call c1 bash <object> (batch 1, serial)',
        '  tool/result c1 ok: line 1',
        '    line 2[image]',
        'step 2',
        '  tool/call c2 x <undefined> (batch 1, serial)',
        '  tool/result c2 error UNKNOWN: no code',
        '  context/message c2: hint',
      ].join('\n'),
    )
    expect(formatSessionLog([])).toBe('')
  })

  it('contentText joins text blocks', () => {
    expect(contentText([text('a'), text('b')])).toBe('ab')
  })
})
