// Generators of random DSL schemas and of valid and near-valid values for them, shared by the property tests
// (the ajv differential, the prototype-pollution test). Test support only: not exported by the package.
import fc from 'fast-check'

/** A generated spec, before it is typed. */
export type Spec = Record<string, unknown>

/** Property names, including ones that are `Object.prototype` members. */
export const keyPool = ['a', 'b', 'kind', 'x y', 'constructor', 'toString', 'hasOwnProperty', '0', '-']
export const literalPools = {
  string: ['', 'a', 'b', 'x y', 'édition', '😀', 'a😀', 'ab12'],
  number: [0, 1, 1.5, -2.25, 1e21, -1e-7, 0.3],
  integer: [0, 1, -3, 42, 9007199254740991],
  boolean: [true, false],
  null: [null],
} as const
type ScalarType = keyof typeof literalPools
const scalarTypes = Object.keys(literalPools) as ScalarType[]

/** A JSON value with no -0 anywhere (lossless JSON rejects -0, ajv accepts it). */
export const jsonValue: fc.Arbitrary<unknown> = fc
  .jsonValue({ maxDepth: 3 })
  .map((value) => JSON.parse(JSON.stringify(value)) as unknown)

export function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/** Value constraints for a node of `type` (consistent ones: the reader rejects bounds that leave nothing). */
export function constraintsFor(type: string): fc.Arbitrary<Spec> {
  const pick = <T>(values: readonly T[]) => fc.option(fc.constantFrom(...values), { nil: undefined })
  const defined = (record: Record<string, unknown>): Spec => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined))
  switch (type) {
    case 'string':
      return fc
        .record({ minLength: pick([0, 1, 2]), maxLength: pick([2, 3, 5]), pattern: pick(['^a', 'b$', '^\\p{L}+$', '^.$', '[0-9]', '😀']) })
        .map(defined)
    case 'number':
    case 'integer':
      return fc
        .record({
          lower: pick([-3, 0, 1]),
          lowerExclusive: fc.boolean(),
          upper: pick([1.5, 42, 1e21]),
          upperExclusive: fc.boolean(),
          multipleOf: pick(type === 'integer' ? [1, 2, 3] : [0.5, 1.5, 2, 0.1, 0.25]),
        })
        .map(({ lower, lowerExclusive, upper, upperExclusive, multipleOf }) =>
          defined({
            [lowerExclusive ? 'exclusiveMinimum' : 'minimum']: lower,
            [upperExclusive ? 'exclusiveMaximum' : 'maximum']: upper,
            multipleOf,
          }),
        )
    case 'array':
      return fc.record({ minItems: pick([0, 1, 2]), maxItems: pick([2, 3]), uniqueItems: pick([true, false]) }).map(defined)
    default:
      return fc.constant({})
  }
}

const scalarSpec: fc.Arbitrary<Spec> = fc.constantFrom(...scalarTypes).chain((type) => {
  const pool = literalPools[type] as readonly unknown[]
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant({ type }) },
    { weight: 2, arbitrary: constraintsFor(type).map((constraints) => ({ type, ...constraints })) },
    { weight: 1, arbitrary: fc.uniqueArray(fc.constantFrom(...pool), { minLength: 1, maxLength: 3 }).map((members) => ({ type, enum: members })) },
    { weight: 1, arbitrary: fc.constantFrom(...pool).map((literal) => ({ type, const: literal })) },
  )
})

/** A random value spec (arrays, objects, oneOf, tagged unions, scalars, json). */
export const { value: valueSpec } = fc.letrec<{ value: Spec; property: Spec; properties: Spec }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 4, depthIdentifier: 'spec' },
    { weight: 5, arbitrary: scalarSpec },
    { weight: 1, arbitrary: fc.constant({ type: 'json' }) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.option(tie('value'), { nil: undefined }), constraintsFor('array'))
        .map(([items, constraints]) => (items === undefined ? { type: 'array', ...constraints } : { type: 'array', items, ...constraints })),
    },
    {
      weight: 2,
      arbitrary: fc.record({ additionalProperties: fc.boolean(), properties: tie('properties') }).map((object) => ({ type: 'object', ...object })),
    },
    { weight: 1, arbitrary: fc.array(tie('value'), { minLength: 2, maxLength: 3 }).map((branches) => ({ oneOf: branches })) },
    // A union told apart by a `kind` literal (the validator dispatches on it instead of trying every branch).
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd'), { minLength: 2, maxLength: 3 }),
          fc.array(fc.tuple(tie('properties'), fc.boolean(), fc.boolean(), fc.boolean()), { minLength: 3, maxLength: 3 }),
        )
        .map(([tags, shapes]) => ({
          oneOf: tags.map((tag, index) => {
            const [properties, additionalProperties, required, asEnum] = shapes[index] as [Spec, boolean, boolean, boolean]
            const kind = { type: 'string', ...(asEnum ? { enum: [tag, `${tag}2`] } : { const: tag }), ...(required ? { required: true } : {}) }
            const withKind: Spec = {}
            setKey(withKind, 'kind', kind)
            for (const [key, value] of Object.entries(properties)) if (key !== 'kind') setKey(withKind, key, value)
            return { type: 'object', additionalProperties, properties: withKind }
          }),
        })),
    },
  ),
  property: fc.record({ spec: tie('value'), required: fc.boolean() }).map(({ spec, required }) => (required ? { ...spec, required: true } : spec)),
  properties: fc.uniqueArray(fc.constantFrom(...keyPool), { maxLength: 4 }).chain((keys) =>
    fc.tuple(...keys.map(() => tie('property'))).map((specs) => {
      const map: Spec = {}
      keys.forEach((key, index) => setKey(map, key, specs[index]))
      return map
    }),
  ),
}))

/** A value for `spec`: valid by construction, except where a node is replaced by random JSON (near-valid). */
export function valueFor(spec: Spec, depth = 0): fc.Arbitrary<unknown> {
  const valid = validValueFor(spec, depth)
  return fc.oneof({ weight: 9, arbitrary: valid }, { weight: 1, arbitrary: jsonValue })
}

function validValueFor(spec: Spec, depth: number): fc.Arbitrary<unknown> {
  if (Array.isArray(spec['oneOf'])) return fc.constantFrom(...(spec['oneOf'] as Spec[])).chain((branch) => valueFor(branch, depth + 1))
  const type = spec['type'] as string
  if (type === 'json') return jsonValue
  if (type === 'array') {
    const items = spec['items'] as Spec | undefined
    // Elements from a small pool too, so that uniqueItems sees duplicates.
    const element = items === undefined ? fc.oneof(jsonValue, fc.constantFrom(1, 'a', null, [1], { a: 1 })) : valueFor(items, depth + 1)
    return fc.array(element, { maxLength: depth > 2 ? 2 : 4 })
  }
  if (type === 'object') return objectFor(spec['properties'] as Spec | undefined, spec['additionalProperties'] === true, depth)
  if (Array.isArray(spec['enum'])) return fc.constantFrom(...(spec['enum'] as unknown[]))
  if ('const' in spec) return fc.oneof(fc.constant(spec['const']), fc.constantFrom(...(literalPools[type as ScalarType] as readonly unknown[])))
  return fc.oneof(fc.constantFrom(...(literalPools[type as ScalarType] as readonly unknown[])), jsonValue)
}

export function objectFor(properties: Spec | undefined, open: boolean, depth: number): fc.Arbitrary<unknown> {
  const entries = Object.entries(properties ?? {}) as [string, Spec][]
  const present = entries.map(([key, spec]) =>
    fc.tuple(fc.constant(key), fc.integer({ min: 0, max: 9 }), valueFor(stripRequired(spec), depth + 1)).map(([name, roll, value]) => {
      // A required property is left out one time in ten, an optional one half the time.
      const keep = spec['required'] === true ? roll > 0 : roll >= 5
      return keep ? ([name, value] as const) : undefined
    }),
  )
  const extras = fc.array(fc.tuple(fc.constantFrom(...keyPool, 'extra'), jsonValue), { maxLength: open ? 2 : 1 })
  return fc
    .tuple(fc.tuple(...present), extras, fc.boolean())
    .map(([declared, extra, withExtras]) => {
      const chosen: (readonly [string, unknown])[] = []
      const names = new Set<string>()
      for (const entry of [...declared, ...(withExtras ? extra : [])]) {
        if (entry === undefined || names.has(entry[0])) continue
        names.add(entry[0])
        chosen.push(entry)
      }
      return chosen
    })
    // Keys in any order: the first violation is the one at the earliest key, whatever order the spec declares.
    .chain((chosen) => fc.shuffledSubarray(chosen, { minLength: chosen.length, maxLength: chosen.length }))
    .map((chosen) => {
      const value: Record<string, unknown> = {}
      for (const [key, item] of chosen) setKey(value, key, item)
      return value
    })
}

function stripRequired(spec: Spec): Spec {
  const { required: _required, ...rest } = spec
  return rest
}

/** A random parameter map. */
export const parameterMap = fc.uniqueArray(fc.constantFrom(...keyPool), { maxLength: 5 }).chain((keys) =>
  fc.tuple(...keys.map(() => fc.record({ spec: valueSpec, required: fc.boolean() }))).map((specs) => {
    const map: Spec = {}
    keys.forEach((key, index) => {
      const { spec, required } = specs[index] as { spec: Spec; required: boolean }
      setKey(map, key, required ? { ...spec, required: true } : spec)
    })
    return map
  }),
)

