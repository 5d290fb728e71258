import { deepFreeze, SNAPSHOT_PROTOTYPE, snapshotJson } from '@dsh/tools-core'
import { defineSuite, type BenchGroup } from '../harness.js'
import { argumentsOfSize, jsonSize, toolArguments } from '../fixtures.js'

function freezeRecursively(value: unknown): unknown {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) freezeRecursively(child)
    Object.freeze(value)
  }
  return value
}

/** The least a copying walk must do: copy and freeze every container, with no check at all. */
function copyAndFreeze(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) return Object.freeze(value.map(copyAndFreeze))
  const copy: Record<string, unknown> = {}
  for (const key in value) copy[key] = copyAndFreeze((value as Record<string, unknown>)[key])
  return Object.freeze(copy)
}

/** {@link copyAndFreeze} whose objects are made by `make`: what the choice of a copy's prototype costs alone. */
function copyWith(make: () => Record<string, unknown>): (value: unknown) => unknown {
  const copy = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null) return value
    if (Array.isArray(value)) return Object.freeze(value.map(copy))
    const object = make()
    for (const key in value) object[key] = copy((value as Record<string, unknown>)[key])
    return Object.freeze(object)
  }
  return copy
}

/**
 * Issue 32: a snapshot's objects must inherit nothing. Three ways to build a copy, each timed building the copy and
 * then reading every top-level key and one key the value lacks (what a tool body does): `{}` (inherits
 * Object.prototype: a polluted key shows through), `Object.create(null)` (V8 keeps it in dictionary mode) and
 * `Object.create(SNAPSHOT_PROTOTYPE)` (the shared frozen prototype snapshotJson uses).
 */
function prototypeGroup(): BenchGroup {
  const input = toolArguments()
  const keys = Object.keys(input)
  const use = (copy: unknown): number => {
    const record = copy as Record<string, unknown>
    let found = 0
    for (const key of keys) if (record[key] !== undefined) found += 1
    return record['absentKey'] === undefined ? found : -1
  }
  const plain = copyWith(() => ({}))
  const nullPrototype = copyWith(() => Object.create(null) as Record<string, unknown>)
  const shared = copyWith(() => Object.create(SNAPSHOT_PROTOTYPE) as Record<string, unknown>)
  return {
    title: 'the copy\'s prototype: build + read, tool arguments',
    baseline: 'copy with {} (inherits Object.prototype)',
    cases: {
      'copy with {} (inherits Object.prototype)': () => use(plain(input)),
      'copy with Object.create(null)': () => use(nullPrototype(input)),
      'copy with Object.create(SNAPSHOT_PROTOTYPE)': () => use(shared(input)),
      'snapshotJson (checked, frozen, SNAPSHOT_PROTOTYPE)': () => use((snapshotJson(input) as { value: unknown }).value),
    },
  }
}

/** Every array and every object inside `value`. */
function containers(value: unknown, found: { arrays: unknown[][]; objects: object[] } = { arrays: [], objects: [] }) {
  if (typeof value === 'object' && value !== null) {
    if (Array.isArray(value)) found.arrays.push(value)
    else found.objects.push(value)
    for (const child of Object.values(value)) containers(child, found)
  }
  return found
}

/**
 * The key enumeration the checks cannot do without: an array's symbol and non-enumerable keys (extra properties)
 * show only in `Reflect.ownKeys` (or `Object.getOwnPropertyNames`, no cheaper), an object's in
 * `Object.getOwnPropertyNames` + `Object.getOwnPropertySymbols`.
 */
function enumerateKeys(found: { arrays: unknown[][]; objects: object[] }): number {
  let count = 0
  for (const array of found.arrays) count += Reflect.ownKeys(array).length
  for (const object of found.objects) count += Object.getOwnPropertyNames(object).length + Object.getOwnPropertySymbols(object).length
  return count
}

/** What a checked snapshot cannot go below: the copy and freeze, and the key enumeration, each alone. */
function floorCases(input: Record<string, unknown>): BenchGroup['cases'] {
  const found = containers(input)
  return {
    'floor: copy + freeze, no checks': () => copyAndFreeze(input),
    [`floor: own-key enumeration alone (${found.arrays.length} arrays, ${found.objects.length} objects)`]: () => enumerateKeys(found),
  }
}

function group(title: string, input: Record<string, unknown>, target?: BenchGroup['target'], floors = false): BenchGroup {
  const snapshot = snapshotJson(input)
  if (!snapshot.ok) throw new Error(snapshot.error.message)
  return {
    title: `${title} (${(jsonSize(input) / 1024).toFixed(1)} KB)`,
    baseline: 'structuredClone + freeze',
    ...(target ? { target } : {}),
    cases: {
      'structuredClone + freeze': () => freezeRecursively(structuredClone(input)),
      'JSON.parse(JSON.stringify()) + freeze': () => freezeRecursively(JSON.parse(JSON.stringify(input))),
      'snapshotJson (checked, frozen)': () => snapshotJson(input),
      'deepFreeze only (no copy, no checks)': () => deepFreeze(structuredClone(input)),
      ...(floors ? floorCases(input) : {}),
    },
  }
}

export default defineSuite({
  name: 'json-snapshot',
  description:
    'Materializing tool arguments: `snapshotJson` makes a detached, deep-frozen copy with every lossless check on (undefined, NaN, -0, class instances, sparse/decorated arrays, symbol and non-enumerable keys, cycles, throwing getters). The peers copy and freeze without checks. "deepFreeze only" is structuredClone + our deepFreeze (generic: any object, descriptors read without running getters), for reference. The two "floor" rows time, each alone, what a checked snapshot cannot skip: copying and freezing every container, and enumerating every container\'s own keys (an array\'s extra, symbol or non-enumerable keys show only in `Reflect.ownKeys` or `Object.getOwnPropertyNames`, which list every index too; an object\'s need `Object.getOwnPropertyNames` + `Object.getOwnPropertySymbols`). Their sum is the fastest a walk with every check on can be on this engine.',
  groups: () => [
    group(
      'tool arguments',
      toolArguments(),
      { case: 'snapshotJson (checked, frozen)', maxRatio: 1 / 3, label: '≥ 3× faster than structuredClone + freeze' },
      true,
    ),
    group('100 KB object', argumentsOfSize(100 * 1024)),
    group('1 MB object', argumentsOfSize(1024 * 1024)),
    prototypeGroup(),
  ],
})
