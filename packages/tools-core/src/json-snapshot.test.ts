import { runInNewContext } from 'node:vm'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isJsonValue, MAX_JSON_DEPTH, snapshotJson, toJsonValue, type JsonSnapshotResult } from './json-snapshot.js'
import { NonJsonValueError } from './non-json-value-error.js'
import { SNAPSHOT_PROTOTYPE } from './snapshot-prototype.js'
import type { JsonValue } from './json.js'

function failure(result: JsonSnapshotResult) {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.value)}`)
  return result.error
}

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen)
}

describe('snapshotJson accepts lossless JSON', () => {
  it('copies scalars, arrays and objects, detached and deep-frozen', () => {
    const input = { a: 1, b: ['x', true, null, { c: 2.5 }], d: { e: '' } }
    const result = snapshotJson(input)
    expect(result.ok).toBe(true)
    if (!result.ok) return
    expect(result.value).toEqual(input)
    expect(result.value).not.toBe(input)
    expect(isDeepFrozen(result.value)).toBe(true)
    input.b.push('later')
    expect((result.value as { b: unknown[] }).b).toHaveLength(4)
    expect(Object.isFrozen(input)).toBe(false)
  })

  it('accepts scalar roots', () => {
    for (const value of ['s', 0, 1.5, -3, true, false, null]) {
      expect(snapshotJson(value)).toEqual({ ok: true, value })
    }
  })

  it('accepts null-prototype objects and returns objects of SNAPSHOT_PROTOTYPE', () => {
    const input = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1 })
    const result = snapshotJson(input)
    expect(result.ok && Object.getPrototypeOf(result.value)).toBe(SNAPSHOT_PROTOTYPE)
  })

  it('accepts objects and arrays from another realm', () => {
    const foreign = runInNewContext('({ list: [1, { x: "y" }], nested: { deep: [[]] } })') as unknown
    const result = snapshotJson(foreign)
    expect(result.ok).toBe(true)
    if (result.ok) expect(JSON.stringify(result.value)).toBe('{"list":[1,{"x":"y"}],"nested":{"deep":[[]]}}')
  })

  it('rejects class instances from another realm', () => {
    expect(failure(snapshotJson({ when: runInNewContext('new Date(0)') })).reason).toBe('class-instance')
  })

  it('keeps a __proto__ key as data', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}') as Record<string, unknown>
    const result = snapshotJson(input)
    expect(result.ok).toBe(true)
    if (!result.ok) return
    const copy = result.value as Record<string, unknown>
    expect(Object.getPrototypeOf(copy)).toBe(SNAPSHOT_PROTOTYPE)
    expect(Object.keys(copy)).toEqual(['__proto__', 'ok'])
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"polluted":true},"ok":1}')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('accepts a shared sub-object, reading it at each place it occurs', () => {
    let reads = 0
    const shared = {
      get value() {
        reads += 1
        return 7
      },
    }
    const result = snapshotJson({ left: shared, right: [shared, shared] })
    expect(result.ok).toBe(true)
    expect(reads).toBe(3)
    if (result.ok) expect(result.value).toEqual({ left: { value: 7 }, right: [{ value: 7 }, { value: 7 }] })
  })

  it('accepts a DAG that expands within the size limit, counting each shared sub-object every time', () => {
    let node: unknown = 'leaf'
    for (let level = 0; level < 16; level += 1) node = [node, node]
    const result = snapshotJson(node)
    expect(result.ok).toBe(true)
    if (result.ok) expect(JSON.stringify(result.value)).toBe(JSON.stringify(node))
  })

  it('accepts containers nested exactly MAX_JSON_DEPTH levels deep, and JSON.stringify survives them', () => {
    let objects: unknown = 'bottom'
    let arrays: unknown = 0
    for (let level = 0; level < MAX_JSON_DEPTH; level += 1) {
      objects = { next: objects }
      arrays = [arrays]
    }
    for (const value of [objects, arrays]) {
      const result = snapshotJson(value)
      expect(result.ok).toBe(true)
      expect(isJsonValue(value)).toBe(true)
      if (result.ok) expect(JSON.parse(JSON.stringify(result.value))).toEqual(value)
    }
  })

  it('reports the full path of a failure just above the depth limit', () => {
    let value: unknown = { bad: undefined }
    for (let level = 0; level < MAX_JSON_DEPTH - 1; level += 1) value = [value]
    const error = failure(snapshotJson(value))
    expect(error.reason).toBe('undefined')
    expect(error.segments).toHaveLength(MAX_JSON_DEPTH)
    expect(error.path.endsWith('[0][0].bad')).toBe(true)
  })

  it('finds a cycle that closes deep below the recursion limit onto a shallow ancestor', () => {
    const root: Record<string, unknown> = {}
    let node = root
    for (let level = 0; level < 900; level += 1) {
      const next: Record<string, unknown> = {}
      node.next = next
      node = next
    }
    node.back = root
    const error = failure(snapshotJson({ root }))
    expect(error.reason).toBe('cycle')
    expect(error.segments).toHaveLength(902)
    expect(error.path.endsWith('next.back')).toBe(true)
    expect(isJsonValue({ root })).toBe(false)
  })

  // The walk recurses for shallow values and switches to an explicit stack deeper down; ancestors are scanned
  // near the root and kept in a Set further down. Every depth around those switches must give the same answers.
  const depths = [0, 1, 63, 64, 65, 66, 199, 200, 201, 202, 450]

  /** A chain of `depth` containers (objects and arrays alternating) around `inner`, and the path to `inner`. */
  function nest(depth: number, inner: unknown): { value: unknown; segments: (string | number)[] } {
    let value = inner
    const segments: (string | number)[] = []
    for (let level = depth; level > 0; level -= 1) {
      if (level % 2 === 0) {
        value = [1, value]
        segments.unshift(1)
      } else {
        value = { a: 'x', [`k${level}`]: value }
        segments.unshift(`k${level}`)
      }
    }
    return { value, segments }
  }

  it.each(depths)('reports the exact path of a failure %i levels down, whatever the failure', (depth) => {
    const inners: [unknown, string, (string | number)[]][] = [
      [{ bad: undefined }, 'undefined', ['bad']],
      [[1, , 3], 'sparse-array', [1]], // oxlint-disable-line no-sparse-arrays
      [new Date(0), 'class-instance', []],
      [Object.assign([1], { extra: 1 }), 'decorated-array', ['extra']],
      [Object.defineProperty({}, 'hidden', { value: 1 }), 'non-enumerable-key', ['hidden']],
      [{ [Symbol('s')]: 1 }, 'symbol-key', []],
      [
        {
          get boom(): number {
            throw new Error('getter exploded')
          },
        },
        'threw',
        ['boom'],
      ],
    ]
    for (const [inner, reason, tail] of inners) {
      const { value, segments } = nest(depth, inner)
      const error = failure(snapshotJson(value))
      expect(error.reason, reason).toBe(reason)
      expect(error.segments, reason).toEqual([...segments, ...tail])
      expect(isJsonValue(value), reason).toBe(false)
    }
  })

  it.each(depths)('finds a cycle onto an ancestor %i levels down, and shares a sub-object reached twice there', (depth) => {
    const target: Record<string, unknown> = { z: 1 }
    const { value, segments } = nest(depth, target)
    const below = nest(30, target)
    target.loop = below.value
    const error = failure(snapshotJson(value))
    expect(error.reason).toBe('cycle')
    expect(error.segments).toEqual([...segments, 'loop', ...below.segments])

    const shared = { leaf: [1, 2] }
    const twice = nest(depth, [shared, { again: shared }, nest(5, shared).value])
    const result = snapshotJson(twice.value)
    expect(result.ok).toBe(true)
    if (result.ok) expect(result.value).toEqual(twice.value)
  })

  it('copies a wide DAG past the sharing threshold and keeps it equal', () => {
    const leaf = { a: [1, 2, 3] }
    const value = Array.from({ length: 30_000 }, () => leaf)
    const result = snapshotJson(value)
    expect(result.ok).toBe(true)
    if (result.ok) expect(result.value).toEqual(value)
  })

  it('copies huge strings', () => {
    const big = 'x'.repeat(32 * 1024 * 1024)
    const result = snapshotJson({ big })
    expect(result.ok && (result.value as { big: string }).big.length).toBe(big.length)
  })

  it('accepts lone surrogates (JSON.stringify escapes them losslessly)', () => {
    const value = { s: '\ud800' }
    const result = snapshotJson(value)
    expect(result.ok).toBe(true)
    expect(JSON.parse(JSON.stringify(value))).toEqual(value)
  })
})

describe('snapshotJson rejects what JSON would lose, naming path and reason', () => {
  const cases: [string, () => unknown, string, string][] = [
    ['undefined property', () => ({ a: { b: undefined } }), 'a.b', 'undefined'],
    ['undefined element', () => [1, undefined], '[1]', 'undefined'],
    ['undefined root', () => undefined, '', 'undefined'],
    ['NaN', () => ({ n: Number.NaN }), 'n', 'non-finite-number'],
    ['Infinity', () => ({ list: [Infinity] }), 'list[0]', 'non-finite-number'],
    ['-Infinity', () => ({ n: -Infinity }), 'n', 'non-finite-number'],
    ['-0', () => ({ zero: -0 }), 'zero', 'negative-zero'],
    ['BigInt', () => ({ big: 10n }), 'big', 'bigint'],
    ['symbol value', () => ({ s: Symbol('x') }), 's', 'symbol'],
    ['function', () => ({ f() {} }), 'f', 'function'],
    ['sparse array', () => ({ list: [1, , 3] }), 'list[1]', 'sparse-array'], // oxlint-disable-line no-sparse-arrays
    [
      'array of only holes',
      () => {
        const list: unknown[] = []
        list.length = 3
        return { list }
      },
      'list[0]',
      'sparse-array',
    ],
    ['decorated array', () => ({ list: Object.assign([1], { extra: true }) }), 'list.extra', 'decorated-array'],
    ['Date', () => ({ when: new Date() }), 'when', 'class-instance'],
    ['Map', () => ({ m: new Map() }), 'm', 'class-instance'],
    ['Set', () => [new Set()], '[0]', 'class-instance'],
    ['Buffer', () => ({ b: Buffer.from('x') }), 'b', 'class-instance'],
    ['typed array', () => ({ t: new Uint8Array(2) }), 't', 'class-instance'],
    ['boxed string', () => ({ s: new String('x') }), 's', 'class-instance'], // oxlint-disable-line no-new-wrappers
    ['class instance', () => ({ p: new (class Point { x = 1 })() }), 'p', 'class-instance'],
    ['Array subclass', () => ({ l: new (class List extends Array {})() }), 'l', 'class-instance'],
    ['error', () => ({ e: new Error('x') }), 'e', 'class-instance'],
    ['symbol key', () => ({ o: { [Symbol('k')]: 1 } }), 'o', 'symbol-key'],
    ['non-enumerable key', () => ({ o: Object.defineProperty({}, 'hidden', { value: 1 }) }), 'o.hidden', 'non-enumerable-key'],
    ['odd key path', () => ({ 'a b': [{ 'c.d': undefined }] }), '["a b"][0]["c.d"]', 'undefined'],
  ]
  it.each(cases)('%s', (_label, make, path, reason) => {
    const error = failure(snapshotJson(make()))
    expect(error.reason).toBe(reason)
    expect(error.path).toBe(path)
    expect(error.message).toContain(path === '' ? 'at the root' : `at "${path}"`)
    expect(error.message).toBe(`${error.detail} (${path === '' ? 'at the root' : `at "${path}"`})`)
    expect(error.detail).not.toContain(' at ')
  })

  it('rejects cycles through objects and arrays', () => {
    const node: Record<string, unknown> = { children: [] }
    ;(node.children as unknown[]).push({ parent: node })
    const error = failure(snapshotJson({ root: node }))
    expect(error.reason).toBe('cycle')
    expect(error.path).toBe('root.children[0].parent')
  })

  it('turns a throwing getter into a failure', () => {
    const value = {
      ok: 1,
      get boom(): number {
        throw new Error('getter exploded')
      },
    }
    const error = failure(snapshotJson({ x: value }))
    expect(error.reason).toBe('threw')
    expect(error.path).toBe('x.boom')
    expect(error.message).toContain('getter exploded')
  })

  it('turns throwing proxy traps into failures, whichever trap throws', () => {
    const traps = ['get', 'ownKeys', 'getPrototypeOf', 'getOwnPropertyDescriptor'] as const
    for (const trap of traps) {
      const proxy = new Proxy(
        { a: 1 },
        {
          [trap]() {
            throw new Error(`trap ${trap}`)
          },
        },
      )
      const error = failure(snapshotJson({ p: proxy }))
      expect(error.reason, trap).toBe('threw')
      expect(error.path.startsWith('p'), trap).toBe(true)
    }
  })

  it('rejects a revoked proxy without throwing', () => {
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    expect(failure(snapshotJson([proxy])).reason).toBe('threw')
  })

  it('accepts a well-behaved proxy of a plain object and copies it', () => {
    const proxy = new Proxy({ a: 1 }, {})
    const result = snapshotJson(proxy)
    expect(result.ok && result.value).toEqual({ a: 1 })
  })

  it('is not fooled by a getter that mutates its object', () => {
    const value: Record<string, unknown> = {
      get first() {
        delete value.second
        value.third = 3
        return 1
      },
      second: 2,
    }
    const error = failure(snapshotJson(value))
    expect(error.path).toBe('second')
    expect(error.reason).toBe('undefined')
  })

  it('snapshots what a getter returns, not what it later changes', () => {
    const list = [1, 2]
    const value = {
      get items() {
        return list
      },
      get later() {
        list.push(3)
        return 'x'
      },
    }
    const result = snapshotJson(value)
    expect(result.ok && result.value).toEqual({ items: [1, 2], later: 'x' })
  })

  it('isJsonValue agrees and never throws', () => {
    expect(isJsonValue({ a: [1] })).toBe(true)
    expect(isJsonValue({ a: [1, undefined] })).toBe(false)
    const hostile = new Proxy({}, { ownKeys: () => { throw new Error('no') } })
    expect(isJsonValue(hostile)).toBe(false)
  })

  it('toJsonValue throws a NonJsonValueError with the failure', () => {
    expect(() => toJsonValue({ n: Number.NaN })).toThrowError(NonJsonValueError)
    try {
      toJsonValue({ n: Number.NaN })
    } catch (error) {
      expect(NonJsonValueError.isInstance(error) && error.code).toBe('NON_JSON_VALUE')
      expect(NonJsonValueError.isInstance(error) && error.failure.path).toBe('n')
    }
  })
})

// fast-check's own jsonValue() may produce -0, which JSON cannot carry (it comes back as 0): build our own,
// with keys that are known traps.
const jsonKey = fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'toString', '0', ''))
const jsonValue: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((number) => !Object.is(number, -0)),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value')),
    fc.dictionary(jsonKey, tie('value')),
  ),
})).value

const nonJsonLeaf = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(Number.NaN, Infinity, -Infinity, -0),
  fc.bigInt().map((value) => value),
  fc.constant(Symbol('leaf')),
  fc.constant(() => 1),
  fc.constant(new Date(0)),
  fc.constant(new Map()),
)

/** Puts `leaf` somewhere inside `host` and returns the path segments to it. */
function plant(host: JsonValue, leaf: unknown, choices: number[]): { value: unknown; segments: (string | number)[] } {
  const segments: (string | number)[] = []
  const root: { value: unknown } = { value: structuredClone(host) }
  let parent: Record<string | number, unknown> = root as unknown as Record<string, unknown>
  let key: string | number = 'value'
  let step = 0
  for (;;) {
    const current: unknown = parent[key]
    const choice = choices[step % choices.length] ?? 0
    step += 1
    if (Array.isArray(current) && current.length > 0 && choice % 3 !== 0) {
      const index: number = choice % current.length
      segments.push(index)
      parent = current as unknown as Record<number, unknown>
      key = index
    } else if (typeof current === 'object' && current !== null && !Array.isArray(current) && Object.keys(current).length > 0 && choice % 3 !== 0) {
      const keys = Object.keys(current)
      const name = keys[choice % keys.length] as string
      segments.push(name)
      parent = current as Record<string, unknown>
      key = name
    } else {
      parent[key] = leaf
      return { value: root.value, segments }
    }
  }
}

describe('properties', () => {
  it('any JSON value round-trips unchanged and frozen', () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        const result = snapshotJson(value)
        expect(result.ok).toBe(true)
        if (!result.ok) return
        // fast-check builds some objects without a prototype; the copy is a plain object by design.
        expect(result.value).toEqual(value)
        expect(JSON.stringify(result.value)).toBe(JSON.stringify(value))
        expect(isDeepFrozen(result.value)).toBe(true)
        expect(isJsonValue(value)).toBe(true)
      }),
    )
  })

  it('any value with a non-JSON leaf is rejected with the path to that leaf', () => {
    fc.assert(
      fc.property(jsonValue, nonJsonLeaf, fc.array(fc.nat(), { minLength: 1, maxLength: 8 }), (host, leaf, choices) => {
        const { value, segments } = plant(host, leaf, choices)
        const result = snapshotJson(value)
        expect(result.ok).toBe(false)
        if (result.ok) return
        expect(result.error.segments).toEqual(segments)
        expect(isJsonValue(value)).toBe(false)
      }),
    )
  })
})
