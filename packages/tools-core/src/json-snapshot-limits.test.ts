import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isJsonValue, MAX_JSON_DEPTH, MAX_JSON_SIZE, snapshotJson, type JsonSnapshotResult } from './json-snapshot.js'

function failure(result: JsonSnapshotResult) {
  if (result.ok) throw new Error('expected a failure')
  return result.error
}

/** The expanded size by its definition, written the slow way: one per value, plus every string's and key's length. */
function expandedSize(value: unknown): number {
  if (typeof value === 'string') return 1 + value.length
  if (typeof value !== 'object' || value === null) return 1
  let size = 1
  for (const [key, child] of Object.entries(value)) size += expandedSize(child) + (Array.isArray(value) ? 0 : key.length)
  return size
}

/** How many containers nest inside each other, at most (0 for a scalar). */
function height(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0
  return 1 + Math.max(0, ...Object.values(value).map(height))
}

/** `input` passes limits equal to its expanded size and height, and fails each one a unit tighter. */
function expectExactLimits(input: unknown): void {
  const size = expandedSize(input)
  const depth = height(input)
  expect(snapshotJson(input, { maxSize: size }).ok).toBe(true)
  // A limit of 0 is not a positive integer (ignored): only sizes above 1 can be one short.
  if (size > 1) {
    expect(failure(snapshotJson(input, { maxSize: size - 1 })).reason).toBe('too-large')
    expect(isJsonValue(input, { maxSize: size - 1 })).toBe(false)
  }
  if (depth > 1) {
    expect(snapshotJson(input, { maxDepth: depth }).ok).toBe(true)
    expect(failure(snapshotJson(input, { maxDepth: depth - 1 })).reason).toBe('too-deep')
  } else if (depth === 1) expect(snapshotJson(input, { maxDepth: 1 }).ok).toBe(true)
}

/** More than 10,000 containers, so that the walk shares (and measures once) what it reaches again. */
const filler = Array.from({ length: 10_001 }, (_, index) => ({ index }))

function chain(levels: number, inner: unknown = 0): unknown {
  let value = inner
  for (let level = 0; level < levels; level += 1) value = level % 2 === 0 ? { next: value } : [value]
  return value
}

describe('snapshotJson refuses values too deep to serialize', () => {
  it('refuses 100,000 levels with a too-deep failure instead of overflowing the stack, in every shape', () => {
    let objects: unknown = 'bottom'
    let arrays: unknown = 0
    for (let level = 0; level < 100_000; level += 1) {
      objects = { next: objects }
      arrays = [arrays]
    }
    for (const value of [objects, arrays, chain(100_000)]) {
      const error = failure(snapshotJson(value))
      expect(error.reason).toBe('too-deep')
      expect(error.segments).toHaveLength(MAX_JSON_DEPTH)
      expect(error.detail).toContain(`more than ${MAX_JSON_DEPTH} levels`)
      expect(error.detail).toContain('MAX_JSON_DEPTH')
      expect(isJsonValue(value)).toBe(false)
    }
  })

  it('refuses one level more than MAX_JSON_DEPTH, naming the place where the limit was passed', () => {
    const value = { top: chain(MAX_JSON_DEPTH) }
    const error = failure(snapshotJson(value))
    expect(error.reason).toBe('too-deep')
    expect(error.segments[0]).toBe('top')
    expect(error.segments).toHaveLength(MAX_JSON_DEPTH)
    expect(error.message).toBe(`${error.detail} (at "${error.path}")`)
    expect(snapshotJson(chain(MAX_JSON_DEPTH)).ok).toBe(true)
  })

  it('counts the height of a shared sub-object reached again deeper down, after sharing started', () => {
    const tall = chain(600)
    // Reached at depth 2 (fits) and again at depth 2 + 500 (600 more levels do not).
    const value = [filler, [tall], chain(500, tall)]
    const error = failure(snapshotJson(value))
    expect(error.reason).toBe('too-deep')
    expect(error.segments[0]).toBe(2)
    expect(snapshotJson([filler, [tall], chain(390, tall)]).ok).toBe(true)
  })

  it('refuses too deep a value without overflowing a caller stack that is already deep', () => {
    const value = chain(100_000)
    function descend(levels: number): JsonSnapshotResult {
      return levels === 0 ? snapshotJson(value) : descend(levels - 1)
    }
    expect(failure(descend(5_000)).reason).toMatch(/^(too-deep|threw)$/)
  })

  it('takes a lower maxDepth option and ignores one that is not a positive integer', () => {
    expect(failure(snapshotJson([[[]]], { maxDepth: 2 })).reason).toBe('too-deep')
    expect(snapshotJson([[[]]], { maxDepth: 3 }).ok).toBe(true)
    for (const maxDepth of [0, -1, 1.5, Number.NaN]) expect(snapshotJson([[[]]], { maxDepth }).ok).toBe(true)
    const hostile = {
      get maxDepth(): number {
        throw new Error('option getter')
      },
    }
    expect(snapshotJson([[[]]], hostile).ok).toBe(true)
  })
})

describe('snapshotJson refuses values that would expand past the size limit', () => {
  it('refuses a DAG that doubles per level, in linear time, without expanding it', () => {
    let node: unknown = 'leaf'
    for (let level = 0; level < 64; level += 1) node = [node, { left: node, right: node }]
    const error = failure(snapshotJson(node))
    expect(error.reason).toBe('too-large')
    expect(error.detail).toContain(`more than ${MAX_JSON_SIZE} units`)
    expect(error.detail).toContain('MAX_JSON_SIZE')
    expect(isJsonValue(node)).toBe(false)
  })

  it('refuses one shared string referenced until the text would pass the limit', () => {
    const text = 'x'.repeat(1000)
    const value = { lines: Array.from({ length: Math.ceil(MAX_JSON_SIZE / 1000) + 1 }, () => text) }
    const error = failure(snapshotJson(value))
    expect(error.reason).toBe('too-large')
    expect(error.path).toBe('lines')
  })

  it('counts exactly: one per value, plus the length of every string and key', () => {
    const value = { ab: ['xyz', 1, null, { c: true }] }
    const size = expandedSize(value)
    expect(size).toBe(1 + (2 + 1) + (1 + 3) + 1 + 1 + 1 + (1 + 1))
    expect(snapshotJson(value, { maxSize: size }).ok).toBe(true)
    expect(failure(snapshotJson(value, { maxSize: size - 1 })).reason).toBe('too-large')
  })

  it('matches the definition of the expanded size and the depth for any JSON value, shared or not', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), fc.boolean(), (generated, share) => {
        const value = JSON.parse(JSON.stringify(generated)) as unknown
        // Shared: the same sub-value at three places after the filler, so the walk measures it once and reuses it.
        expectExactLimits(share ? [filler, value, { again: value }, [value]] : value)
      }),
      { numRuns: 200 },
    )
  })
})

describe('snapshotJson sees own properties only', () => {
  it('never reads an inherited key or index from a polluted prototype', () => {
    const prototypes = Object.prototype as Record<string, unknown>
    const arrays = Array.prototype as unknown as Record<number, unknown>
    const sparse = [0, , 2] // oxlint-disable-line no-sparse-arrays
    try {
      prototypes['command'] = 'rm -rf /'
      arrays[1] = 'filled from the prototype'
      const object = snapshotJson({ a: 1 })
      expect(object.ok && Object.keys(object.value as object)).toEqual(['a'])
      const error = failure(snapshotJson({ list: sparse }))
      expect(error.reason).toBe('sparse-array')
      expect(error.path).toBe('list[1]')
      expect(isJsonValue(sparse)).toBe(false)
    } finally {
      delete prototypes['command']
      delete arrays[1]
    }
  })
})

describe('snapshotJson reuses a finished snapshot as it is, within the limits of the walk that meets it', () => {
  it('answers a snapshot with itself, and a value holding one with that same subtree', () => {
    const first = snapshotJson({ files: [{ path: 'a.txt' }], mode: 'read' })
    if (!first.ok) throw new Error('expected a snapshot')
    const again = snapshotJson(first.value)
    expect(again.ok && again.value).toBe(first.value)
    const outer = snapshotJson({ call: first.value, more: [first.value] })
    if (!outer.ok) throw new Error('expected a snapshot')
    const copy = outer.value as { call: unknown; more: unknown[] }
    expect(copy.call).toBe(first.value)
    expect(copy.more[0]).toBe(first.value)
    expect(isJsonValue(first.value)).toBe(true)
  })

  it('keeps the mark out of every view of the value: keys, JSON text, structured clones', () => {
    const made = snapshotJson({ a: [1, { b: 'c' }] })
    if (!made.ok) throw new Error('expected a snapshot')
    expect(Reflect.ownKeys(made.value as object)).toEqual(['a'])
    expect(JSON.stringify(made.value)).toBe('{"a":[1,{"b":"c"}]}')
    expect(structuredClone(made.value)).toEqual({ a: [1, { b: 'c' }] })
    // A proxy of a snapshot is not the snapshot: it is walked (and copied) like any other value.
    const proxied = new Proxy(made.value as object, {})
    const walked = snapshotJson(proxied)
    expect(walked.ok && walked.value).not.toBe(proxied)
    expect(walked.ok && walked.value).toEqual({ a: [1, { b: 'c' }] })
  })

  it('counts a reused snapshot by its recorded size and height, exactly as if it were walked', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), fc.boolean(), (generated, nest) => {
        const made = snapshotJson(JSON.parse(JSON.stringify(generated)) as unknown)
        if (!made.ok) throw new Error('expected a snapshot')
        // Reused at the root, or below two levels of a new value (where its parent counts it once).
        expectExactLimits(nest ? { outer: [made.value, 'x'] } : made.value)
      }),
      { numRuns: 300 },
    )
  })

  it('refuses a snapshot that passes the size limit of a later walk, naming where it sits', () => {
    const made = snapshotJson({ text: 'x'.repeat(50) })
    if (!made.ok) throw new Error('expected a snapshot')
    const error = failure(snapshotJson({ list: [made.value] }, { maxSize: 40 }))
    expect(error.reason).toBe('too-large')
    expect(error.path).toBe('list[0]')
  })
})
