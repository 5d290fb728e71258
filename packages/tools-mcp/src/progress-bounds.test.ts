import { describe, expect, it } from 'vitest'
import { boundedProgress, MAX_PROGRESS_MESSAGE_BYTES } from './call-tool.js'

describe('boundedProgress (what mcp/progress listeners get from an untrusted server)', () => {
  it('regression: a megabyte progress message reaches listeners cut to MAX_PROGRESS_MESSAGE_BYTES', () => {
    const event = boundedProgress({ progress: 1, total: 2, message: 'é'.repeat(1_000_000) })
    expect(Buffer.byteLength(event.message ?? '', 'utf8')).toBeLessThanOrEqual(MAX_PROGRESS_MESSAGE_BYTES)
    expect(event.message?.startsWith('éé')).toBe(true)
    expect(event).toMatchObject({ progress: 1, total: 2 })
  })

  it('keeps finite numbers and string messages only', () => {
    expect(boundedProgress({ progress: Number.NaN, total: Infinity, message: { text: 'x' } })).toEqual({ progress: 0 })
    expect(boundedProgress({ progress: 3, message: 'step 3' })).toEqual({ progress: 3, message: 'step 3' })
  })
})
