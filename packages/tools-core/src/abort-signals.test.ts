import { getEventListeners } from 'node:events'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { abortIsolated, isAbortSignal, listenForAbort, signalAborted, signalReason } from './abort-signals.js'

type Module = typeof import('./abort-signals.js')
/** A second, separately loaded copy of the module, as a second installed version of the package would be. */
async function secondCopy(): Promise<Module> {
  vi.resetModules()
  return (await import('./abort-signals.js')) as Module
}
const settle = () => new Promise((resolve) => setTimeout(resolve, 20))

afterEach(() => vi.restoreAllMocks())

describe('reading signals through the platform', () => {
  it('tells a real signal from a look-alike, and ignores replaced own properties', () => {
    const controller = new AbortController()
    expect(isAbortSignal(controller.signal)).toBe(true)
    expect(isAbortSignal({ aborted: false, addEventListener() {} })).toBe(false)
    expect(isAbortSignal(null)).toBe(false)
    Object.defineProperty(controller.signal, 'aborted', { get: () => true })
    Object.defineProperty(controller.signal, 'reason', { get: () => 'planted' })
    expect(signalAborted(controller.signal)).toBe(false)
    controller.abort('real')
    expect(signalAborted(controller.signal)).toBe(true)
    expect(signalReason(controller.signal)).toBe('real')
  })

  it('listens once with the platform method, even when the signal replaced its own addEventListener', () => {
    const controller = new AbortController()
    const planted = vi.fn()
    Object.defineProperty(controller.signal, 'addEventListener', { value: planted })
    const heard = vi.fn()
    const remove = listenForAbort(controller.signal, heard)
    controller.abort()
    controller.abort()
    expect(heard).toHaveBeenCalledTimes(1)
    expect(planted).not.toHaveBeenCalled()
    expect(() => remove()).not.toThrow()
  })
})

describe('listenForAbort with many listenings on one signal', () => {
  it('gives the signal one platform listener however many listen, and removes it with the last one', () => {
    const controller = new AbortController()
    const removals = Array.from({ length: 10_000 }, () => listenForAbort(controller.signal, () => {}))
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1)
    for (const remove of removals.slice(1)) remove()
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1)
    removals[0]!()
    removals[0]!()
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
    const heard = vi.fn()
    listenForAbort(controller.signal, heard)
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1)
    controller.abort()
    expect(heard).toHaveBeenCalledTimes(1)
  })

  it('calls the listenings in order, each once, skipping one an earlier one removed, and never one made during the abort', () => {
    const controller = new AbortController()
    const calls: string[] = []
    const same = () => calls.push('same')
    let removeThird: () => void = () => {}
    listenForAbort(controller.signal, () => {
      calls.push('first')
      removeThird()
      listenForAbort(controller.signal, () => calls.push('made during the abort'))
    })
    listenForAbort(controller.signal, same)
    removeThird = listenForAbort(controller.signal, () => calls.push('third'))
    listenForAbort(controller.signal, same)
    controller.abort()
    controller.abort()
    expect(calls).toEqual(['first', 'same', 'same'])
    const late = vi.fn()
    listenForAbort(controller.signal, late)
    expect(late).not.toHaveBeenCalled()
  })

  it("an exception of one listening is reported as the platform reports a listener's, after the others ran", async () => {
    const controller = new AbortController()
    const after = vi.fn()
    listenForAbort(controller.signal, () => {
      throw new Error('one listening failed')
    })
    listenForAbort(controller.signal, after)
    const reported: unknown[] = []
    abortIsolated(controller, 'stop', (error) => reported.push(error))
    expect(after).toHaveBeenCalledTimes(1)
    await settle()
    expect(reported.map((error) => (error as Error).message)).toEqual(['one listening failed'])
  })
})

describe('abortIsolated', () => {
  it("hands a listener's exception to the report, and the host's uncaughtException listeners never see it", async () => {
    const host = vi.fn()
    process.on('uncaughtException', host)
    try {
      const controller = new AbortController()
      controller.signal.addEventListener('abort', () => {
        throw new Error('listener blew up')
      })
      const reported: unknown[] = []
      abortIsolated(controller, 'stop', (error) => reported.push(error))
      await settle()
      expect(reported.map((error) => (error as Error).message)).toEqual(['listener blew up'])
      expect(host).not.toHaveBeenCalled()
      expect(process.rawListeners('uncaughtException')).toContain(host)
    } finally {
      process.off('uncaughtException', host)
    }
  })

  it("an abort inside another's listener, from a second copy of the package: each exception goes to its own report, and the host listeners come back exactly as they were", async () => {
    const other = await secondCopy()
    expect(other.abortIsolated).not.toBe(abortIsolated)
    const host = vi.fn()
    process.on('uncaughtException', host)
    const before = process.rawListeners('uncaughtException')
    try {
      const inner = new AbortController()
      inner.signal.addEventListener('abort', () => {
        throw new Error('inner listener')
      })
      const outer = new AbortController()
      const innerReports: string[] = []
      outer.signal.addEventListener('abort', () => {
        other.abortIsolated(inner, 'cascade', (error) => innerReports.push((error as Error).message))
        throw new Error('outer listener')
      })
      const outerReports: string[] = []
      abortIsolated(outer, 'stop', (error) => outerReports.push((error as Error).message))
      await settle()
      expect(innerReports).toEqual(['inner listener'])
      expect(outerReports).toEqual(['outer listener'])
      expect(host).not.toHaveBeenCalled()
      expect(process.rawListeners('uncaughtException')).toEqual(before)
      // And the window is closed: a later uncaught exception reaches the host again.
      for (const listener of process.listeners('uncaughtException')) listener(new Error('later'), 'uncaughtException')
      expect(host).toHaveBeenCalledTimes(1)
    } finally {
      process.off('uncaughtException', host)
    }
  })

  it('a report that throws is dropped, and an abort with no listener reports nothing', async () => {
    const controller = new AbortController()
    controller.signal.addEventListener('abort', () => {
      throw new Error('x')
    })
    expect(() =>
      abortIsolated(controller, 'stop', () => {
        throw new Error('logger failed')
      }),
    ).not.toThrow()
    const quiet = vi.fn()
    abortIsolated(new AbortController(), 'stop', quiet)
    await settle()
    expect(quiet).not.toHaveBeenCalled()
  })
})
