// The validation suites' schemas, inputs and groups, shared by the single-schema process (validation-single) and
// the many-schemas process (validation): the same groups, measured after different histories.
import { isJsonValue } from '@dsh/tools-core'
import { compileParameters, schemaSpecToJsonSchema, type ParameterSchemaSpec } from '@dsh/tools-schema'
import { Type, type TSchema } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { z } from 'zod'
import { withOwnCallSites, type BenchGroup } from './harness.js'

// --- the three schemas, in each library's own idiom -------------------------------------------------------------

const flat = {
  path: { type: 'string', required: true, description: 'Absolute path' },
  offset: { type: 'integer' },
  limit: { type: 'integer' },
} as const satisfies ParameterSchemaSpec

/** The nested schema with its file list under `key` (`files` here; the speed-v3 suite varies it per tool). */
export function nestedSpec<const Key extends string>(key: Key) {
  return {
    options: {
      type: 'object',
      additionalProperties: false,
      properties: {
        modes: { type: 'array', items: { type: 'string', enum: ['read', 'write', 'append', 'create'] } },
        recursive: { type: 'boolean' },
      },
    },
    [key]: {
      type: 'array',
      required: true,
      items: {
        type: 'object',
        additionalProperties: false,
        properties: { path: { type: 'string', required: true }, content: { type: 'string', required: true } },
      },
    },
  } as const satisfies ParameterSchemaSpec
}

const nested = nestedSpec('files')

const shape = (kind: string, fields: Record<string, { type: 'string' } | { type: 'integer' }>) =>
  ({
    type: 'object',
    additionalProperties: false,
    properties: {
      kind: { type: 'string', const: kind, required: true },
      ...Object.fromEntries(Object.entries(fields).map(([name, spec]) => [name, { ...spec, required: true }])),
    },
  }) as const
const edits = {
  edit: {
    required: true,
    oneOf: [
      shape('insert', { path: { type: 'string' }, line: { type: 'integer' }, text: { type: 'string' } }),
      shape('replace', { path: { type: 'string' }, old: { type: 'string' }, new: { type: 'string' } }),
      shape('delete', { path: { type: 'string' }, start: { type: 'integer' }, end: { type: 'integer' } }),
    ],
  },
} as const satisfies ParameterSchemaSpec

export const zodSchemas: Record<string, z.ZodType> = {
  flat: z.looseObject({ path: z.string(), offset: z.int().optional(), limit: z.int().optional() }),
  nested: z.looseObject({
    options: z.strictObject({ modes: z.array(z.enum(['read', 'write', 'append', 'create'])).optional(), recursive: z.boolean().optional() }).optional(),
    files: z.array(z.strictObject({ path: z.string(), content: z.string() })),
  }),
  edits: z.looseObject({
    edit: z.discriminatedUnion('kind', [
      z.strictObject({ kind: z.literal('insert'), path: z.string(), line: z.int(), text: z.string() }),
      z.strictObject({ kind: z.literal('replace'), path: z.string(), old: z.string(), new: z.string() }),
      z.strictObject({ kind: z.literal('delete'), path: z.string(), start: z.int(), end: z.int() }),
    ]),
  }),
}

const closed = { additionalProperties: false }
export const typeboxSchemas: Record<string, TSchema> = {
  flat: Type.Object({ path: Type.String(), offset: Type.Optional(Type.Integer()), limit: Type.Optional(Type.Integer()) }),
  nested: Type.Object({
    options: Type.Optional(
      Type.Object(
        { modes: Type.Optional(Type.Array(Type.Union(['read', 'write', 'append', 'create'].map((mode) => Type.Literal(mode))))), recursive: Type.Optional(Type.Boolean()) },
        closed,
      ),
    ),
    files: Type.Array(Type.Object({ path: Type.String(), content: Type.String() }, closed)),
  }),
  edits: Type.Object({
    edit: Type.Union([
      Type.Object({ kind: Type.Literal('insert'), path: Type.String(), line: Type.Integer(), text: Type.String() }, closed),
      Type.Object({ kind: Type.Literal('replace'), path: Type.String(), old: Type.String(), new: Type.String() }, closed),
      Type.Object({ kind: Type.Literal('delete'), path: Type.String(), start: Type.Integer(), end: Type.Integer() }, closed),
    ]),
  }),
}

// --- inputs ---------------------------------------------------------------------------------------------------------

const files = Array.from({ length: 10 }, (_, index) => ({
  path: `/workspace/project/src/module-${index}.ts`,
  content: `export const value${index} = ${JSON.stringify('x'.repeat(80))}\n`,
}))
export const inputs: Record<string, { valid: unknown; invalid: unknown }> = {
  flat: { valid: { path: '/workspace/project/README.md', offset: 120, limit: 400 }, invalid: { path: '/workspace/a', offset: 'ten' } },
  nested: {
    valid: { options: { modes: ['read', 'write'], recursive: true }, files },
    invalid: { options: { modes: ['read', 'write'], recursive: true }, files: files.map((file, index) => (index === 6 ? { ...file, path: 42 } : file)) },
  },
  edits: {
    valid: { edit: { kind: 'delete', path: '/workspace/project/src/main.ts', start: 10, end: 24 } },
    invalid: { edit: { kind: 'replace', path: '/workspace/project/src/main.ts', old: 'let' } },
  },
}
const validSize = JSON.stringify(inputs['nested']?.valid).length

/** A schema with value constraints: string lengths, a pattern, number bounds, a unique list. */
const constrained = {
  path: { type: 'string', required: true, minLength: 1, maxLength: 4096, pattern: '^/' },
  offset: { type: 'integer', minimum: 1 },
  limit: { type: 'integer', minimum: 1, maximum: 2000 },
  ratio: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
  tags: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 32 }, maxItems: 8, uniqueItems: true },
} as const satisfies ParameterSchemaSpec
inputs.constrained = {
  valid: { path: '/workspace/project/src/main.ts', offset: 10, limit: 200, ratio: 0.5, tags: ['read', 'scan'] },
  invalid: { path: '/workspace/project/src/main.ts', offset: 0, limit: 200 },
}
zodSchemas.constrained = z.looseObject({
  path: z.string().min(1).max(4096).regex(/^\//u),
  offset: z.int().min(1).optional(),
  limit: z.int().min(1).max(2000).optional(),
  ratio: z.number().gt(0).max(1).optional(),
  tags: z.array(z.string().min(1).max(32)).max(8).optional(),
})
typeboxSchemas.constrained = Type.Object({
  path: Type.String({ minLength: 1, maxLength: 4096, pattern: '^/' }),
  offset: Type.Optional(Type.Integer({ minimum: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2000 })),
  ratio: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1 })),
  tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 32 }), { maxItems: 8, uniqueItems: true })),
})

export const specs = { flat, nested, edits, constrained } as const
export type Name = keyof typeof specs
export const titles: Record<Name, string> = {
  flat: 'flat (path, offset, limit)',
  nested: `nested (${(validSize / 1024).toFixed(1)} KB: options with an enum array, 10 {path, content})`,
  edits: 'oneOf of 3 shapes told apart by a const kind',
  constrained: 'constraints (string lengths, a pattern, number bounds, a unique list)',
}

/**
 * The flat schema's rules written out by hand as one function: what a code generator emitting our checks (plain
 * object, no -0, own extra keys lossless JSON) would run. Only a reference for the cost of those rules with
 * monomorphic loads.
 */
export function flatByHand(value: unknown): boolean {
  try {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
    const proto: unknown = Object.getPrototypeOf(value)
    if (proto !== Object.prototype && proto !== null) return false
    const record = value as Record<string, unknown>
    let path = 0
    for (const key in record) {
      const item = record[key]
      if (key === 'path') {
        if (typeof item !== 'string') return false
        path = 1
      } else if (key === 'offset' || key === 'limit') {
        if (!Number.isInteger(item) || (item === 0 && 1 / item < 0)) return false
      } else if (Object.hasOwn(record, key) && !isJsonValue(item)) return false
    }
    return path === 1
  } catch {
    return false
  }
}

/** What a first violation of the flat schema is, as the references below build it (our `Violation`'s shape). */
interface HandViolation {
  path: string
  segments: string[]
  keyword: string
  message: string
}

/** The last violation a reference built: kept, as ajv keeps `validate.errors`, so that the engine must build it. */
export let lastHandViolation: HandViolation | undefined

/** `the string "ten"`, `the number 1.5`, …: the value named as our messages name it (short printable strings only). */
function nameByHand(value: unknown): string {
  if (typeof value === 'string' && value.length <= 38) {
    let plain = true
    for (let index = 0; index < value.length && plain; index++) {
      const code = value.charCodeAt(index)
      plain = code >= 0x20 && code <= 0x7e && code !== 0x22 && code !== 0x5c
    }
    if (plain) return 'the string "' + value + '"'
  }
  if (typeof value === 'number') return `the number ${value}`
  return typeof value
}

/**
 * The flat schema's first violation written out by hand: the walk of {@link flatByHand}, stopping at the first
 * failure and building what our `firstViolation` promises (path as text and as segments, the keyword, and, with
 * `named`, a message naming the offending value; without it a fixed message, as ajv's error carries). The floor
 * of a first violation under our contract, and what naming the value costs on its own.
 */
export function flatFirstViolationByHand(value: unknown, named: boolean): HandViolation | undefined {
  const record = value as Record<string, unknown>
  let path = 0
  for (const key in record) {
    const item = record[key]
    if (key === 'path') {
      if (typeof item !== 'string') return (lastHandViolation = { path: key, segments: [key], keyword: 'type', message: named ? `expected a string, got ${nameByHand(item)}` : 'must be string' })
      path = 1
    } else if (key === 'offset' || key === 'limit') {
      if (!Number.isInteger(item) || (item === 0 && 1 / item < 0)) {
        return (lastHandViolation = { path: key, segments: [key], keyword: 'type', message: named ? `expected an integer, got ${nameByHand(item)}` : 'must be integer' })
      }
    } else if (Object.hasOwn(record, key) && !isJsonValue(item)) return (lastHandViolation = { path: key, segments: [key], keyword: 'json', message: 'is not JSON' })
  }
  return path === 1 ? undefined : (lastHandViolation = { path: 'path', segments: ['path'], keyword: 'required', message: 'is required but missing' })
}

/**
 * Every validation group times its cases in interleaved bursts (see `BenchGroup.interleaved`): measured one after
 * another, a case sometimes ran through a stretch in which the machine ran at about half its speed, and the ratio
 * then said more about when a case ran than about the case.
 */
const interleaved = {}

function groupsFor(name: Name): BenchGroup[] {
  const spec: ParameterSchemaSpec = specs[name]
  const jsonSchema = schemaSpecToJsonSchema(spec)
  const ours = compileParameters(spec)
  const closures = compileParameters(spec, { backend: 'closures' })
  if (ours.backend !== 'generated') throw new Error('this host did not allow generated code: the "ours" rows would measure closures')
  const ajv = new Ajv2020().compile(jsonSchema)
  const ajvAll = new Ajv2020({ allErrors: true }).compile(jsonSchema)
  const typebox = TypeCompiler.Compile(typeboxSchemas[name] as TSchema)
  const zod = zodSchemas[name] as z.ZodType
  const { valid, invalid } = inputs[name] as { valid: unknown; invalid: unknown }
  for (const [library, verdicts] of Object.entries({
    ours: [ours.is(valid), ours.is(invalid)],
    'ours (closures)': [closures.is(valid), closures.is(invalid)],
    ajv: [ajv(valid), ajv(invalid)],
    typebox: [typebox.Check(valid), typebox.Check(invalid)],
    zod: [zod.safeParse(valid).success, zod.safeParse(invalid).success],
  })) {
    if (verdicts[0] !== true || verdicts[1] !== false) throw new Error(`${name}: ${library} does not tell valid from invalid`)
  }
  if (name === 'flat' && (!flatByHand(valid) || flatByHand(invalid))) throw new Error('flat: the hand-written reference does not tell valid from invalid')
  if (name === 'flat' && JSON.stringify(flatFirstViolationByHand(invalid, true)) !== JSON.stringify(ours.firstViolation(invalid))) {
    throw new Error('flat: the hand-written first violation is not the one ours reports')
  }
  const scope = { ours, closures, ajv, ajvAll, typebox, zod, valid, invalid, flatByHand, flatFirstViolationByHand }
  return [
    {
      title: `valid: ${titles[name]}`,
      baseline: 'ajv',
      interleaved,
      target: { case: 'ours', maxRatio: 1, label: 'ours ≤ 1.0× ajv' },
      cases: withOwnCallSites(scope, {
        ours: () => ours.is(valid),
        'ours (closures)': () => closures.is(valid),
        'ours validate()': () => ours.validate(valid),
        ajv: () => ajv(valid),
        'ajv allErrors': () => ajvAll(valid),
        typebox: () => typebox.Check(valid),
        zod: () => zod.safeParse(valid),
        ...(name === 'flat' ? { 'reference: our rules written by hand (no library)': () => flatByHand(valid) } : {}),
      }),
    },
    {
      title: `invalid, first violation with its path: ${titles[name]}`,
      baseline: 'ajv',
      interleaved,
      target: { case: 'ours', maxRatio: 1, label: 'ours ≤ 1.0× ajv' },
      cases: withOwnCallSites(scope, {
        ours: () => ours.firstViolation(invalid)?.path,
        'ours (closures)': () => closures.firstViolation(invalid)?.path,
        'ours is() only': () => ours.is(invalid),
        ajv: () => (ajv(invalid) ? undefined : ajv.errors?.[0]?.instancePath),
        typebox: () => typebox.Errors(invalid).First()?.path,
        zod: () => zod.safeParse(invalid).error?.issues[0]?.path,
        ...(name === 'flat'
          ? {
              'reference: by hand, value named (our contract)': () => flatFirstViolationByHand(invalid, true)?.path,
              'reference: by hand, fixed message (ajv\'s contract)': () => flatFirstViolationByHand(invalid, false)?.path,
            }
          : {}),
      }),
    },
    {
      title: `invalid, every violation: ${titles[name]}`,
      baseline: 'ajv allErrors',
      interleaved,
      cases: withOwnCallSites(scope, {
        'ours validate()': () => ours.validate(invalid),
        'ours (closures) validate()': () => closures.validate(invalid),
        'ajv allErrors': () => (ajvAll(invalid) ? undefined : ajvAll.errors),
        zod: () => zod.safeParse(invalid).error?.issues,
      }),
    },
  ]
}

function compileGroup(name: Name): BenchGroup {
  const spec: ParameterSchemaSpec = specs[name]
  const jsonSchema = schemaSpecToJsonSchema(spec)
  const typeboxSchema = typeboxSchemas[name] as TSchema
  return {
    title: `compile: ${titles[name]}`,
    baseline: 'ajv (fresh Ajv)',
    // One after another (mitata, best of three rounds): interleaved with ajv's compiles, ours paid for collecting
    // ajv's garbage (a fresh Ajv allocates megabytes).
    rounds: 3,
    target: { case: 'ours', maxRatio: 0.05, label: 'ours ≤ 0.05× ajv (≥ 20× faster)' },
    cases: withOwnCallSites({ compileParameters, Ajv2020, TypeCompiler, spec, jsonSchema, typeboxSchema }, {
      ours: () => compileParameters(spec, { cache: false }),
      'ours (closures)': () => compileParameters(spec, { cache: false, backend: 'closures' }),
      'ajv (fresh Ajv)': () => new Ajv2020().compile(jsonSchema),
      'typebox TypeCompiler': () => TypeCompiler.Compile(typeboxSchema),
    }),
  }
}

// --- the many-schemas process: a few dozen other schemas, compiled and exercised first ------------------------------

const fieldTypes = [
  { type: 'string' },
  { type: 'integer' },
  { type: 'number' },
  { type: 'boolean' },
  { type: 'string', enum: ['a', 'b', 'c'] },
  { type: 'array', items: { type: 'string' } },
  { type: 'string', minLength: 1, maxLength: 100 },
  { type: 'integer', minimum: 0, maximum: 1000 },
] as const
const fieldValues: readonly unknown[] = ['text', 7, 2.5, true, 'b', ['x', 'y'], 'short', 42]
const fieldNames = ['id', 'name', 'path', 'query', 'limit', 'offset', 'mode', 'verbose', 'tags', 'url', 'body', 'count', 'depth', 'pattern', 'cwd', 'env']

/** How many other schemas the many-schemas process compiles and exercises before measuring. */
export const OTHER_SCHEMAS = 48

/** A registry's worth of other tool schemas: flat ones, nested objects, arrays of objects, tagged unions. */
function otherSchemas(): { spec: ParameterSchemaSpec; valid: Record<string, unknown>; invalid: Record<string, unknown> }[] {
  return Array.from({ length: OTHER_SCHEMAS }, (_, index) => {
    const width = 2 + (index % 6)
    const spec: Record<string, unknown> = {}
    const valid: Record<string, unknown> = {}
    for (let field = 0; field < width; field++) {
      const kind = (index * 7 + field * 3) % fieldTypes.length
      const name = `${fieldNames[(index + field * 5) % fieldNames.length]}${field}`
      spec[name] = field === 0 ? { ...fieldTypes[kind], required: true } : fieldTypes[kind]
      valid[name] = fieldValues[kind]
    }
    const nesting = index % 4
    if (nesting === 1) {
      spec['options'] = { type: 'object', additionalProperties: false, properties: { depth: { type: 'integer' }, follow: { type: 'boolean' } } }
      valid['options'] = { depth: 2, follow: true }
    } else if (nesting === 2) {
      spec['items'] = { type: 'array', items: { type: 'object', additionalProperties: index % 8 === 2, properties: { key: { type: 'string', required: true }, value: { type: 'json' } } } }
      valid['items'] = [{ key: 'a', value: 1 }, { key: 'b', value: [true] }]
    } else if (nesting === 3) {
      spec['action'] = {
        oneOf: [
          { type: 'object', additionalProperties: false, properties: { op: { type: 'string', const: `start${index}`, required: true }, at: { type: 'integer' } } },
          { type: 'object', additionalProperties: false, properties: { op: { type: 'string', const: `stop${index}`, required: true } } },
        ],
      }
      valid['action'] = { op: `stop${index}` }
    }
    const first = Object.keys(valid)[0] as string
    return { spec: spec as ParameterSchemaSpec, valid, invalid: { ...valid, [first]: { wrong: true } } }
  })
}

/** Compiles the other schemas with both backends and ajv, and runs each on valid and invalid input many times. */
function exerciseOtherSchemas(): void {
  let sink = 0
  for (const { spec, valid, invalid } of otherSchemas()) {
    const ours = compileParameters(spec)
    const closures = compileParameters(spec, { backend: 'closures' })
    const ajv = new Ajv2020().compile(schemaSpecToJsonSchema(spec))
    if (!ours.is(valid) || ours.is(invalid) || !closures.is(valid) || !ajv(valid)) throw new Error('an exercise schema does not tell valid from invalid')
    for (let round = 0; round < 2000; round++) {
      sink += Number(ours.is(valid)) + Number(closures.is(valid)) + Number(ajv(valid)) + Number(ajv(invalid))
      if (round % 10 === 0) sink += (ours.firstViolation(invalid)?.path.length ?? 0) + (closures.firstViolation(invalid)?.path.length ?? 0)
    }
  }
  if (sink === 0) throw new Error('unreachable')
}

/** The groups of one process: `many` compiles and exercises {@link OTHER_SCHEMAS} other schemas first. */
export function validationGroups(many: boolean): BenchGroup[] {
  if (many) exerciseOtherSchemas()
  const names = Object.keys(specs) as Name[]
  return [...names.flatMap(groupsFor), compileGroup('nested'), compileGroup('constrained')]
}

export const validationVersions = { '@dsh/tools-schema': '0.1.0', ajv: '8.20.0', '@sinclair/typebox': '0.34.52', zod: '4.6.7' }
