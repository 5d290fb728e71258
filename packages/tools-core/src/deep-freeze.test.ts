import { describe, expect, it } from 'vitest'
import { deepFreeze } from './deep-freeze.js'
import { NonJsonValueError } from './non-json-value-error.js'

describe('deepFreeze', () => {
  it('freezes nested objects and arrays in place and returns the same value', () => {
    const value = { a: { b: [1, { c: 2 }] }, [Symbol.for('s')]: { d: 1 } }
    const frozen = deepFreeze(value)
    expect(frozen).toBe(value)
    expect(Object.isFrozen(value.a.b[1])).toBe(true)
    expect(Object.isFrozen(value[Symbol.for('s')])).toBe(true)
    expect(() => {
      ;(value.a as Record<string, unknown>).x = 1
    }).toThrow(TypeError)
  })

  it('survives cycles and deep nesting, and leaves scalars alone', () => {
    const node: Record<string, unknown> = {}
    node.self = node
    expect(Object.isFrozen(deepFreeze(node))).toBe(true)
    let deep: unknown = {}
    for (let level = 0; level < 100_000; level += 1) deep = { next: deep }
    deepFreeze(deep)
    expect(deepFreeze(3)).toBe(3)
  })

  it('never invokes getters and does not freeze functions', () => {
    let reads = 0
    const fn = () => 1
    const value = {
      get lazy() {
        reads += 1
        return {}
      },
      fn,
    }
    deepFreeze(value)
    expect(reads).toBe(0)
    expect(Object.isFrozen(fn)).toBe(false)
  })
})

describe('deepFreeze on hostile objects', () => {
  it('throws a coded NonJsonValueError with the path for a revoked proxy, never a raw TypeError', () => {
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    let thrown: unknown
    try {
      deepFreeze({ list: [1, { inner: proxy }] })
    } catch (error) {
      thrown = error
    }
    expect(NonJsonValueError.isInstance(thrown)).toBe(true)
    const error = thrown as NonJsonValueError
    expect(error.code).toBe('NON_JSON_VALUE')
    expect(error.failure.reason).toBe('threw')
    expect(error.failure.path).toBe('list[1].inner')
    expect(error.message).toContain('could not be frozen')
  })

  it('throws a coded error when a proxy trap throws, whichever trap', () => {
    for (const trap of ['ownKeys', 'getOwnPropertyDescriptor', 'preventExtensions'] as const) {
      const proxy = new Proxy(
        { a: 1 },
        {
          [trap]() {
            throw new Error(`trap ${trap}`)
          },
        },
      )
      expect(() => deepFreeze({ p: proxy }), trap).toThrow(NonJsonValueError)
    }
  })

  it('never runs a getter that throws', () => {
    const value = {
      get boom(): never {
        throw new Error('getter ran')
      },
    }
    expect(() => deepFreeze(value)).not.toThrow()
    expect(Object.isFrozen(value)).toBe(true)
  })
})
