// Conformance against the JSON Schema Test Suite (draft 2020-12). The suite is not part of the repository; it is
// found, in this order, at
//   - $DSH_CONFORMANCE_DIR/json-schema-test-suite/draft2020-12 (DSH_CONFORMANCE_DIR names the folder that holds
//     json-schema-test-suite/; a relative path is taken from the repository root), or
//   - ../shared/conformance/json-schema-test-suite/draft2020-12 beside the repository (where CI has it).
// When it is in neither place, its groups do not run and the test command's summary says so; with CI=true, or with
// DSH_CONFORMANCE_DIR pointing at a folder without the suite, the run fails instead. tooling/test.sh puts a
// fingerprint of the suite into this package's turbo test hash, so a cached result is one of the same suite.
//
// 1. The structured-output subset: every group whose schema lies inside the subset is validated exactly as the
//    suite says; every group using anything outside it is rejected by the subset assertion (and an independent
//    classifier below agrees on which groups are inside).
// 2. The DSL: every group whose schema can be written in the DSL (translated below) is validated exactly as the
//    suite says.
//
// Harness steps, not differences: the root "$schema" (the suite's dialect declaration, always draft 2020-12, the
// dialect we implement) is removed before the subset assertion; annotations are dropped when translating to the
// DSL (JSON Schema ignores them; the DSL additionally checks defaults against their node at definition time).
// Deliberate differences: none are needed for the groups inside the subsets (the suite's data is lossless JSON).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { backendUnderTest } from './backend-under-test.setup.js'
import { compileValueSchema } from './compile-schema.js'
import { OutputSchemaError } from './output-schema-error.js'
import type { ValueSchemaSpec } from './schema-spec.js'
import { assertStructuredSchemaNode, validateStructuredValue } from './structured-output.js'

const repositoryRoot = resolve(import.meta.dirname, '../../..')
const dialect = 'https://json-schema.org/draft/2020-12/schema'
const suitePath = join('json-schema-test-suite', 'draft2020-12')

type SuiteLocation =
  | { kind: 'found'; directory: string; from: 'DSH_CONFORMANCE_DIR' | '../shared/conformance' }
  /** DSH_CONFORMANCE_DIR is set, but the suite is not in it: a mistake to report, not a reason to look elsewhere. */
  | { kind: 'misplaced'; directory: string }
  | { kind: 'absent'; looked: string[] }

const isDirectory = (path: string): boolean => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true

/** Where the suite's draft 2020-12 files are, by the rules at the top of this file. */
function locateSuite(env: Record<string, string | undefined>, root: string): SuiteLocation {
  const configured = env['DSH_CONFORMANCE_DIR']
  if (configured !== undefined && configured !== '') {
    const directory = resolve(root, configured, suitePath)
    return isDirectory(directory) ? { kind: 'found', directory, from: 'DSH_CONFORMANCE_DIR' } : { kind: 'misplaced', directory }
  }
  const beside = resolve(root, '../shared/conformance', suitePath)
  return isDirectory(beside) ? { kind: 'found', directory: beside, from: '../shared/conformance' } : { kind: 'absent', looked: [beside] }
}

describe('locating the JSON Schema Test Suite', () => {
  // A scratch layout: <scratch>/repo is the repository, <scratch>/shared/conformance the folder beside it.
  const scratch = mkdtempSync(join(tmpdir(), 'dsh-conformance-'))
  const repo = join(scratch, 'repo')
  mkdirSync(repo)
  afterAll(() => rmSync(scratch, { recursive: true, force: true }))
  const placeSuite = (folder: string): string => {
    const directory = join(scratch, folder, suitePath)
    mkdirSync(directory, { recursive: true })
    return directory
  }

  test('is absent when DSH_CONFORMANCE_DIR is unset and nothing is beside the repository', () => {
    expect(locateSuite({}, repo)).toEqual({ kind: 'absent', looked: [join(scratch, 'shared/conformance', suitePath)] })
  })

  test('finds it in DSH_CONFORMANCE_DIR, absolute or relative to the repository root', () => {
    const directory = placeSuite('elsewhere')
    expect(locateSuite({ DSH_CONFORMANCE_DIR: join(scratch, 'elsewhere') }, repo)).toEqual({ kind: 'found', directory, from: 'DSH_CONFORMANCE_DIR' })
    expect(locateSuite({ DSH_CONFORMANCE_DIR: '../elsewhere' }, repo)).toEqual({ kind: 'found', directory, from: 'DSH_CONFORMANCE_DIR' })
  })

  test('finds it in ../shared/conformance beside the repository, and DSH_CONFORMANCE_DIR wins over it', () => {
    const beside = placeSuite('shared/conformance')
    expect(locateSuite({}, repo)).toEqual({ kind: 'found', directory: beside, from: '../shared/conformance' })
    expect(locateSuite({ DSH_CONFORMANCE_DIR: '' }, repo)).toEqual({ kind: 'found', directory: beside, from: '../shared/conformance' })
    const configured = placeSuite('configured')
    expect(locateSuite({ DSH_CONFORMANCE_DIR: join(scratch, 'configured') }, repo)).toEqual({
      kind: 'found',
      directory: configured,
      from: 'DSH_CONFORMANCE_DIR',
    })
  })

  test('reports a DSH_CONFORMANCE_DIR without the suite instead of falling back', () => {
    placeSuite('shared/conformance')
    mkdirSync(join(scratch, 'empty'), { recursive: true })
    expect(locateSuite({ DSH_CONFORMANCE_DIR: join(scratch, 'empty') }, repo)).toEqual({
      kind: 'misplaced',
      directory: join(scratch, 'empty', suitePath),
    })
  })
})

interface SuiteCase {
  description: string
  data: unknown
  valid: boolean
}
interface SuiteGroup {
  description: string
  schema: unknown
  tests: SuiteCase[]
}

const location = locateSuite(process.env, repositoryRoot)
const files = location.kind === 'found' ? readdirSync(location.directory).filter((file) => file.endsWith('.json')).sort() : []
const groups = files.flatMap((file) =>
  location.kind === 'found'
    ? (JSON.parse(readFileSync(join(location.directory, file), 'utf8')) as SuiteGroup[]).map((group, index) => ({ file, number: index + 1, ...group }))
    : [],
)

type Json = Record<string, unknown>
const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)
const scalarTypes = ['string', 'number', 'integer', 'boolean', 'null'] as const
const jsonTypeOf = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'number' ? 'number' : typeof value

function withoutDialect(schema: unknown): unknown {
  if (!isRecord(schema) || schema['$schema'] !== dialect) return schema
  const { $schema: _dialect, ...rest } = schema
  return rest
}

function literalFits(type: string, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string'
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
    case 'integer':
      return Number.isInteger(value)
    case 'boolean':
      return typeof value === 'boolean'
    case 'null':
      return value === null
    default:
      return false
  }
}

/** The value constraints by the type they apply to (`number`: number and integer). */
const constraintsFor = {
  string: ['minLength', 'maxLength', 'pattern'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  array: ['minItems', 'maxItems', 'uniqueItems'],
} as const
const allConstraints: readonly string[] = [...constraintsFor.string, ...constraintsFor.number, ...constraintsFor.array]

/** The constraint values a schema carries are legal ones (counts, finite bounds, a positive divisor, a compiling pattern). */
function constraintsFit(schema: Json): boolean {
  for (const key of ['minLength', 'maxLength', 'minItems', 'maxItems']) {
    if (key in schema && !(Number.isSafeInteger(schema[key]) && (schema[key] as number) >= 0)) return false
  }
  for (const key of constraintsFor.number) if (key in schema && !(typeof schema[key] === 'number' && Number.isFinite(schema[key]))) return false
  if ('multipleOf' in schema && !((schema['multipleOf'] as number) > 0)) return false
  if ('uniqueItems' in schema && typeof schema['uniqueItems'] !== 'boolean') return false
  if ('pattern' in schema) {
    if (typeof schema['pattern'] !== 'string') return false
    try {
      new RegExp(schema['pattern'], 'u')
    } catch {
      return false
    }
  }
  return true
}

/** The constraint keywords of `schema` that apply to `type`. */
function constraintsOf(schema: Json, type: string): Json {
  const keys: readonly string[] =
    type === 'string' ? constraintsFor.string : type === 'number' || type === 'integer' ? constraintsFor.number : type === 'array' ? constraintsFor.array : []
  return Object.fromEntries(keys.filter((key) => key in schema).map((key) => [key, schema[key]]))
}

/** An independent reading of the subset's rules (structured-output.ts documents them). */
function insideSubset(schema: unknown): boolean {
  if (!isRecord(schema)) return false
  const type = schema['type']
  if (typeof type !== 'string' || !['object', 'array', ...scalarTypes].includes(type)) return false
  const allowed = new Set(['type', 'description', 'title', 'default', 'examples'])
  if (type === 'object') for (const key of ['properties', 'required', 'additionalProperties']) allowed.add(key)
  if (type === 'array') for (const key of ['items', ...constraintsFor.array]) allowed.add(key)
  if ((scalarTypes as readonly string[]).includes(type)) for (const key of ['enum', 'const']) allowed.add(key)
  if (type === 'string') for (const key of constraintsFor.string) allowed.add(key)
  if (type === 'number' || type === 'integer') for (const key of constraintsFor.number) allowed.add(key)
  if (!Object.keys(schema).every((key) => allowed.has(key))) return false
  if (!constraintsFit(schema)) return false
  for (const key of ['description', 'title']) if (key in schema && typeof schema[key] !== 'string') return false
  if ('examples' in schema && !Array.isArray(schema['examples'])) return false
  if ('enum' in schema) {
    const members = schema['enum']
    if (!Array.isArray(members) || members.length === 0 || 'const' in schema) return false
    if (!members.every((member) => literalFits(type, member)) || new Set(members).size !== members.length) return false
  }
  if ('const' in schema && !literalFits(type, schema['const'])) return false
  if ('additionalProperties' in schema && typeof schema['additionalProperties'] !== 'boolean') return false
  const properties = schema['properties'] ?? {}
  if (!isRecord(properties) || !Object.values(properties).every(insideSubset)) return false
  if ('required' in schema) {
    const required = schema['required']
    if (!Array.isArray(required) || new Set(required).size !== required.length) return false
    if (!required.every((name) => typeof name === 'string' && Object.hasOwn(properties, name))) return false
  }
  return !('items' in schema) || insideSubset(schema['items'])
}

/**
 * A JSON Schema written in the DSL, or `undefined` when the DSL cannot express it. Without `type`, JSON Schema
 * applies each keyword to its own type only; that is a oneOf over the JSON types (disjoint, so exactly one matches).
 */
function toDsl(schema: unknown): Json | undefined {
  if (schema === true) return { type: 'json' }
  if (!isRecord(schema)) return undefined
  const supported = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'oneOf', ...allConstraints])
  const annotations = new Set(['description', 'title', 'default', 'examples', '$comment'])
  for (const key of Object.keys(schema)) if (!supported.has(key) && !annotations.has(key)) return undefined
  if ('oneOf' in schema) {
    const { oneOf, ...rest } = schema
    if (!Array.isArray(oneOf) || Object.keys(rest).some((key) => supported.has(key))) return undefined
    const branches = oneOf.map(toDsl)
    if (branches.some((branch) => branch === undefined) || branches.length === 0) return undefined
    return branches.length === 1 ? branches[0] : { oneOf: branches }
  }
  let types: string[]
  if (!('type' in schema)) types = ['null', 'boolean', 'number', 'string', 'object', 'array']
  else if (typeof schema['type'] === 'string') types = [schema['type']]
  else if (Array.isArray(schema['type']) && schema['type'].every((type) => typeof type === 'string')) types = schema['type'] as string[]
  else return undefined
  if (types.includes('number')) types = types.filter((type) => type !== 'integer')
  if (!constraintsFit(schema)) return undefined
  let literals: unknown[] | undefined
  if ('enum' in schema) literals = schema['enum'] as unknown[]
  if ('const' in schema) literals = literals === undefined ? [schema['const']] : literals.filter((value) => value === schema['const'])
  if (literals !== undefined && !literals.every((value) => value === null || typeof value !== 'object')) return undefined
  const branches: Json[] = []
  for (const type of types) {
    if (literals !== undefined) {
      const members = [...new Set(literals.filter((value) => literalFits(type, value) || (type === 'number' && jsonTypeOf(value) === 'number')))]
      // The DSL requires every literal to meet the node's constraints; a literal that does not can never match.
      const constraints = constraintsOf(schema, type)
      const kept = members.filter((member) => Object.keys(constraints).length === 0 || (() => { try { return compileValueSchema({ type, ...constraints } as unknown as ValueSchemaSpec).is(member) } catch { return false } })())
      if (kept.length > 0) branches.push({ type, enum: kept, ...constraints })
      continue
    }
    if (type === 'object') {
      const object = objectToDsl(schema)
      if (object === undefined) return undefined
      branches.push(object)
    } else if (type === 'array') {
      if (!('items' in schema) || schema['items'] === true) branches.push({ type: 'array', ...constraintsOf(schema, type) })
      else {
        const items = toDsl(schema['items'])
        if (items === undefined) return undefined
        branches.push({ type: 'array', items, ...constraintsOf(schema, type) })
      }
    } else if ((scalarTypes as readonly string[]).includes(type)) branches.push({ type, ...constraintsOf(schema, type) })
    else return undefined
  }
  if (branches.length === 0) return undefined
  return branches.length === 1 ? branches[0] : { oneOf: branches }
}

function objectToDsl(schema: Json): Json | undefined {
  const additional = schema['additionalProperties'] ?? true
  if (typeof additional !== 'boolean') return undefined
  const properties = schema['properties'] ?? {}
  const required = schema['required'] ?? []
  if (!isRecord(properties) || !Array.isArray(required)) return undefined
  const map: Json = {}
  const define = (name: string, value: unknown) => Object.defineProperty(map, name, { value, enumerable: true, writable: true, configurable: true })
  for (const [name, property] of Object.entries(properties)) {
    const node = toDsl(property)
    if (node === undefined) return undefined
    define(name, required.includes(name) ? { ...node, required: true } : node)
  }
  for (const name of required) {
    if (typeof name !== 'string') return undefined
    if (Object.hasOwn(map, name)) continue
    // A required name with no schema: any JSON value, but present. Not expressible when no other key is allowed.
    if (!additional) return undefined
    define(name, { type: 'json', required: true })
  }
  return { type: 'object', additionalProperties: additional, properties: map }
}

const constraintFiles = new Set(allConstraints.map((keyword) => `${keyword}.json`))
const counts = {
  groups: groups.length,
  subset: { inside: 0, rejected: 0, cases: 0 },
  dsl: { translated: 0, notExpressible: 0, cases: 0 },
  /** Groups of the value-constraint files (minLength.json … uniqueItems.json) that ran, in either front end. */
  constraints: { groups: groups.filter((group) => constraintFiles.has(group.file)).length, dsl: 0, subset: 0, cases: 0 },
}

afterAll(() => {
  if (location.kind !== 'found') return
  const { subset, dsl } = counts
  console.log(
    `JSON Schema Test Suite (${location.directory}), ${backendUnderTest} backend: ${counts.groups} groups in ${files.length} files. ` +
      `Structured-output subset: ${subset.inside} groups inside (${subset.cases} cases, all as the suite says), ` +
      `${subset.rejected} rejected by assertStructuredSchemaNode. ` +
      `DSL: ${dsl.translated} groups expressible (${dsl.cases} cases, all as the suite says), ${dsl.notExpressible} not expressible. ` +
      `Value constraints (${[...constraintFiles].join(', ')}): ${counts.constraints.groups} groups, ` +
      `${counts.constraints.dsl} run through the DSL and ${counts.constraints.subset} through the subset (${counts.constraints.cases} cases).`,
  )
})

// tooling/summarize-tests.mjs counts the groups below by this describe title (conformanceSuiteTitle there).
const suiteTitle = 'JSON Schema Test Suite (draft 2020-12)'

// Absent outside CI: no block at all (not a skipped one), and the test command's summary says the groups did not run.
if (location.kind === 'misplaced' || (location.kind === 'absent' && process.env['CI'] === 'true')) {
  const problem =
    location.kind === 'misplaced'
      ? `DSH_CONFORMANCE_DIR is set, but the suite is not in it (no folder ${location.directory})`
      : `CI is "true" and the suite is not at ${location.looked.join(' or ')}: ` +
        'set DSH_CONFORMANCE_DIR to the folder that holds json-schema-test-suite/'
  describe(suiteTitle, () => {
    test('the suite is there', () => {
      expect.fail(problem)
    })
  })
}

if (location.kind === 'found') describe(suiteTitle, () => {
  test('the suite is there', () => {
    expect(files.length).toBeGreaterThan(40)
    expect(groups.length).toBeGreaterThan(300)
  })

  // `#number` (the group's place in its file) keeps the titles unique: some files repeat a description, and the
  // summary counts the groups that ran by their titles.
  describe.each(groups)('$file #$number: $description', (group) => {
    const schema = withoutDialect(group.schema)

    test('structured-output subset', () => {
      let accepted = true
      try {
        assertStructuredSchemaNode(schema)
      } catch (error) {
        if (!OutputSchemaError.isInstance(error)) throw error
        expect(error.problems.length).toBeGreaterThan(0)
        accepted = false
      }
      expect(accepted).toBe(insideSubset(schema))
      if (!accepted) {
        counts.subset.rejected++
        return
      }
      counts.subset.inside++
      if (constraintFiles.has(group.file)) counts.constraints.subset++
      for (const suiteCase of group.tests) {
        const result = validateStructuredValue(schema as Parameters<typeof validateStructuredValue>[0], suiteCase.data)
        expect(result.ok, suiteCase.description).toBe(suiteCase.valid)
        counts.subset.cases++
      }
    })

    test('DSL', () => {
      const spec = toDsl(schema)
      if (spec === undefined) {
        counts.dsl.notExpressible++
        return
      }
      const validator = compileValueSchema(spec as unknown as ValueSchemaSpec)
      counts.dsl.translated++
      if (constraintFiles.has(group.file)) {
        counts.constraints.dsl++
        counts.constraints.cases += group.tests.length
      }
      for (const suiteCase of group.tests) {
        expect(validator.is(suiteCase.data), `${suiteCase.description}: ${JSON.stringify(spec)}`).toBe(suiteCase.valid)
        expect(validator.validate(suiteCase.data).ok).toBe(suiteCase.valid)
        counts.dsl.cases++
      }
    })
  })
})
