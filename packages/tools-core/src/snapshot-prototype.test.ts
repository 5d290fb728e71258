// Issue 32, class 1: a snapshot inherits nothing, so a polluted Object.prototype never shows through a key the
// value lacks, and a snapshot taken again is still JSON.
import { inspect } from 'node:util'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { snapshotJson } from './json-snapshot.js'
import { isEmptyPrototype, SNAPSHOT_PROTOTYPE } from './snapshot-prototype.js'

function polluted<T>(key: string, value: unknown, run: () => T): T {
  const prototype = Object.prototype as Record<string, unknown>
  Object.defineProperty(prototype, key, { value, writable: true, configurable: true, enumerable: true })
  try {
    return run()
  } finally {
    delete prototype[key]
  }
}

function snapshot(value: unknown): Record<string, unknown> {
  const result = snapshotJson(value)
  if (!result.ok) throw new Error(result.error.message)
  return result.value as Record<string, unknown>
}

describe('a snapshot never reads a value from a prototype', () => {
  it('a key the value lacks reads undefined at every level while Object.prototype is polluted', () => {
    const copy = snapshot(JSON.parse('{"list":[{"a":1}],"nested":{"b":2}}'))
    polluted('command', 'rm -rf /', () => {
      expect(copy['command']).toBeUndefined()
      expect((copy['nested'] as Record<string, unknown>)['command']).toBeUndefined()
      expect(((copy['list'] as unknown[])[0] as Record<string, unknown>)['command']).toBeUndefined()
      expect('command' in copy).toBe(false)
    })
  })

  it('a snapshot taken while polluted does not pick the polluted key up either', () => {
    const copy = polluted('command', 'rm -rf /', () => snapshot({ path: '/tmp' }))
    expect(Object.keys(copy)).toEqual(['path'])
    polluted('command', 'x', () => expect(copy['command']).toBeUndefined())
  })

  it('every object of a snapshot has SNAPSHOT_PROTOTYPE, which is frozen, has no string key and inherits nothing', () => {
    const copy = snapshot({ a: { b: [{ c: {} }] } })
    const inner = ((copy['a'] as Record<string, unknown>)['b'] as Record<string, unknown>[])[0] as Record<string, unknown>
    expect(Object.getPrototypeOf(copy)).toBe(SNAPSHOT_PROTOTYPE)
    expect(Object.getPrototypeOf(inner['c'])).toBe(SNAPSHOT_PROTOTYPE)
    expect(Object.isFrozen(SNAPSHOT_PROTOTYPE)).toBe(true)
    expect(Object.getOwnPropertyNames(SNAPSHOT_PROTOTYPE)).toEqual([])
    expect(Object.getPrototypeOf(SNAPSHOT_PROTOTYPE)).toBeNull()
    expect(() => Object.defineProperty(SNAPSHOT_PROTOTYPE, 'x', { value: 1 })).toThrow(TypeError)
  })

  it('a snapshot is JSON again: taken again it is accepted, equal, and a spread makes an ordinary object', () => {
    const copy = snapshot({ a: 1, b: { c: ['d'] } })
    const again = snapshot(copy)
    expect(JSON.stringify(again)).toBe('{"a":1,"b":{"c":["d"]}}')
    expect(again).toEqual({ a: 1, b: { c: ['d'] } })
    expect(Object.getPrototypeOf({ ...copy })).toBe(Object.prototype)
    expect(Object.hasOwn(copy, 'a')).toBe(true)
  })
})

describe('a snapshot prints and converts like a plain object', () => {
  it('console.log / util.inspect show it as a plain object, nested ones too', () => {
    const copy = snapshot({ content: [{ type: 'text', text: 'Hello' }], meta: { deep: { a: 1 } } })
    expect(inspect(copy, { depth: 5 })).toBe(inspect({ content: [{ type: 'text', text: 'Hello' }], meta: { deep: { a: 1 } } }, { depth: 5 }))
    expect(inspect(copy, { depth: 0 })).toBe(inspect({ content: [{}], meta: {} }, { depth: 0 }).replace('[ {} ]', '[Array]').replace('meta: {}', 'meta: [Object]'))
  })

  it('String(value) and a template literal give [object Object] instead of throwing', () => {
    const copy = snapshot({ a: 1 })
    expect(String(copy)).toBe('[object Object]')
    expect(`${copy}`).toBe('[object Object]')
  })
})

describe('isEmptyPrototype', () => {
  it('accepts null, SNAPSHOT_PROTOTYPE and an equivalent one from another copy of the package', () => {
    expect(isEmptyPrototype(null)).toBe(true)
    expect(isEmptyPrototype(SNAPSHOT_PROTOTYPE)).toBe(true)
    expect(isEmptyPrototype(Object.freeze(Object.create(null)))).toBe(true)
    expect(isEmptyPrototype(runInNewContext('Object.freeze(Object.create(null))'))).toBe(true)
  })

  it('refuses a prototype that could hand out a value: not frozen, not empty, or with a prototype of its own', () => {
    expect(isEmptyPrototype(Object.create(null))).toBe(false)
    expect(isEmptyPrototype(Object.freeze(Object.assign(Object.create(null), { command: 'x' })))).toBe(false)
    expect(isEmptyPrototype(Object.freeze({}))).toBe(false)
    expect(isEmptyPrototype(Object.prototype)).toBe(false)
    expect(isEmptyPrototype(undefined)).toBe(false)
  })

  it('an object whose prototype is a non-empty frozen object is a class instance to snapshotJson', () => {
    const proto = Object.freeze(Object.assign(Object.create(null), { command: 'rm' }))
    const result = snapshotJson(Object.assign(Object.create(proto), { a: 1 }))
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.error.reason).toBe('class-instance')
  })
})
