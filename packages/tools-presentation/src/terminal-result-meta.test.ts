import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { readTerminalResultMeta, terminalResultFromMeta, terminalResultMeta } from './terminal-result-meta.js'

describe('terminalResultMeta', () => {
  it('fills defaults and keeps durationMs when given', () => {
    expect(terminalResultMeta({ exitCode: 2 })).toEqual({ exitCode: 2, signal: null, timedOut: false })
    expect(terminalResultMeta({ exitCode: null, signal: 'SIGKILL', timedOut: true, durationMs: 1200 })).toEqual({
      exitCode: null,
      signal: 'SIGKILL',
      timedOut: true,
      durationMs: 1200,
    })
  })
})

describe('readTerminalResultMeta', () => {
  it('reads valid metas and ignores other keys', () => {
    expect(readTerminalResultMeta({ exitCode: 0, signal: null, timedOut: false, taskId: 'b1' })).toEqual({
      exitCode: 0,
      signal: null,
      timedOut: false,
    })
    expect(readTerminalResultMeta({ exitCode: null, signal: 'SIGTERM', timedOut: true, durationMs: 0 })).toEqual({
      exitCode: null,
      signal: 'SIGTERM',
      timedOut: true,
      durationMs: 0,
    })
  })

  it('rejects anything else', () => {
    const invalid = [
      undefined,
      null,
      'exit 0',
      [0],
      {},
      { exitCode: 0, signal: null },
      { exitCode: '0', signal: null, timedOut: false },
      { exitCode: 1.5, signal: null, timedOut: false },
      { exitCode: Number.NaN, signal: null, timedOut: false },
      { exitCode: 0, signal: '', timedOut: false },
      { exitCode: 0, signal: 9, timedOut: false },
      { exitCode: 0, signal: null, timedOut: 'no' },
      { exitCode: 0, signal: null, timedOut: false, durationMs: -1 },
      { exitCode: 0, signal: null, timedOut: false, durationMs: Number.POSITIVE_INFINITY },
    ]
    for (const meta of invalid) expect(readTerminalResultMeta(meta), JSON.stringify(meta)).toBeUndefined()
  })

  it('round-trips every meta the builder makes, also through JSON (property)', () => {
    const meta = fc.record({
      exitCode: fc.option(fc.integer({ min: -2_147_483_648, max: 2_147_483_647 }), { nil: null }),
      signal: fc.option(fc.constantFrom('SIGTERM', 'SIGKILL', 'SIGINT'), { nil: null }),
      timedOut: fc.boolean(),
      durationMs: fc.option(fc.nat(), { nil: undefined }),
    })
    fc.assert(
      fc.property(meta, (input) => {
        const built = terminalResultMeta(input)
        expect(readTerminalResultMeta(JSON.parse(JSON.stringify(built)))).toEqual(built)
      }),
    )
  })
})

describe('terminalResultFromMeta', () => {
  it('takes the exit status from meta, never from the text', () => {
    const view = terminalResultFromMeta({
      content: [{ type: 'text', text: 'tests passed\n[exit code: 3]\n' }],
      isError: false,
      meta: { exitCode: 0, signal: null, timedOut: false },
    })
    expect(view).toEqual({ card: 'terminal', output: 'tests passed\n[exit code: 3]\n', exitCode: 0, signal: null, timedOut: false })
  })

  it('leaves the exit status unknown when meta is missing or invalid, whatever the text says', () => {
    for (const meta of [undefined, { exitCode: 'three' }]) {
      const view = terminalResultFromMeta({ content: [{ type: 'text', text: 'boom\n[exit code: 3]' }], isError: false, meta })
      expect(view).toEqual({ card: 'terminal', output: 'boom\n[exit code: 3]' })
    }
  })

  it('uses the given title and output, and joins text blocks on new lines', () => {
    const toolResult = {
      content: [
        { type: 'text' as const, text: 'out' },
        { type: 'image' as const, data: 'AA==', mimeType: 'image/png' },
        { type: 'text' as const, text: '[stderr]\nerr\n' },
      ],
      isError: false,
      meta: { exitCode: 1, signal: null, timedOut: false },
    }
    expect(terminalResultFromMeta(toolResult).output).toBe('out\n[stderr]\nerr\n')
    expect(terminalResultFromMeta(toolResult, { title: 'npm test', output: 'clean' })).toMatchObject({
      title: 'npm test',
      output: 'clean',
      exitCode: 1,
    })
  })
})
