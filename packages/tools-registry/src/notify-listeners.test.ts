// notifyListeners: every listener called as ctx.emit would, every failure reported, nothing thrown or unhandled.
import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { notifyListeners } from './index.js'

describe('notifyListeners', () => {
  it('calls every listener synchronously and reports a throw and a rejection each once; nothing unhandled', async () => {
    const unhandled: unknown[] = []
    const record = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', record)
    try {
      const ctx = new Context()
      const heard: unknown[] = []
      ctx.on('custom/notice' as never, ((value: unknown) => void heard.push(value)) as never)
      ctx.on('custom/notice' as never, (() => {
        throw new Error('sync broke')
      }) as never)
      ctx.on('custom/notice' as never, (async () => {
        throw new Error('async broke')
      }) as never)
      const reported: string[] = []
      notifyListeners(ctx, 'custom/notice', [7], (error) => reported.push((error as Error).message))
      expect(heard).toEqual([7])
      for (let round = 0; round < 3; round += 1) await new Promise((resolve) => setImmediate(resolve))
      expect(reported.sort()).toEqual(['async broke', 'sync broke'])
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', record)
    }
  })

  it('a report that throws changes nothing', async () => {
    const ctx = new Context()
    ctx.on('custom/notice' as never, (() => {
      throw new Error('broke')
    }) as never)
    expect(() =>
      notifyListeners(ctx, 'custom/notice', [], () => {
        throw new Error('report broke')
      }),
    ).not.toThrow()
    await new Promise((resolve) => setImmediate(resolve))
  })
})
