// Hostile specs, definitions and options: revoked proxies, throwing getters and getters that answer differently,
// at any position. Every entry point answers with its documented coded error (or works), never a raw throw, and
// reads each property once.
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { compileParameters, compileValueSchema } from './compile-schema.js'
import { defineParameters, defineValueSchema } from './define-parameters.js'
import { defineTool } from './define-tool.js'
import type { JsonSchemaError } from './json-schema-error.js'
import { parameterMap, valueSpec, type Spec } from './schema-arbitraries.js'
import type { ParameterSchemaSpec, ValueSchemaSpec } from './schema-spec.js'
import { schemaSpecToJsonSchema } from './schema-spec-to-json-schema.js'
import { assertSupportedOutputSchema, validateStructuredValue, type StructuredSchemaNode } from './structured-output.js'

type Path = readonly (string | number)[]

/** Every place inside `value` that holds an object or an array (the root is `[]`). */
function containerPaths(value: unknown, path: Path = []): Path[] {
  if (typeof value !== 'object' || value === null) return []
  const found: Path[] = [path]
  for (const [key, child] of Object.entries(value)) found.push(...containerPaths(child, [...path, Array.isArray(value) ? Number(key) : key]))
  return found
}

/** Every place inside `value` that holds a property (any value). */
function propertyPaths(value: unknown, path: Path = []): Path[] {
  if (typeof value !== 'object' || value === null) return []
  return Object.entries(value).flatMap(([key, child]) => {
    const here = [...path, Array.isArray(value) ? Number(key) : key]
    return [here, ...propertyPaths(child, here)]
  })
}

/** A deep copy of `value` (keys as data) with the container at `path` replaced by `replace(original)`. */
function replaceAt(value: unknown, path: Path, replace: (original: unknown) => unknown): unknown {
  if (path.length === 0) return replace(value)
  const [head, ...rest] = path
  const copy = (Array.isArray(value) ? [...(value as unknown[])] : { ...(value as object) }) as Record<string, unknown>
  Object.defineProperty(copy, head as string, { value: replaceAt((value as Record<string, unknown>)[head as string], rest, replace), enumerable: true, writable: true, configurable: true })
  return copy
}

/** A deep copy of `value` with the property at `path` turned into `getter`. */
function getterAt(value: unknown, path: Path, getter: (original: unknown) => () => unknown): unknown {
  const parent = path.slice(0, -1)
  const key = path[path.length - 1] as string
  return replaceAt(value, parent, (original) => {
    const copy = (Array.isArray(original) ? [...(original as unknown[])] : { ...(original as object) }) as Record<string, unknown>
    Object.defineProperty(copy, key, { get: getter((original as Record<string, unknown>)[key]), enumerable: true, configurable: true })
    return copy
  })
}

function revoked(): object {
  const { proxy, revoke } = Proxy.revocable({}, {})
  revoke()
  return proxy
}

const throwing = () => () => {
  throw new Error('hostile getter')
}

const codes = new Set(['INVALID_TOOL_DEFINITION', 'UNSUPPORTED_SCHEMA', 'UNSUPPORTED_OUTPUT_SCHEMA'])

/** Runs `run`: fine if it returns, fine if it throws one of the documented coded errors; anything else fails. */
function codedOrFine(run: () => unknown): void {
  try {
    run()
  } catch (error) {
    expect(error, String(error)).not.toBeInstanceOf(TypeError)
    expect(codes.has((error as { code?: string }).code as string), String(error)).toBe(true)
  }
}

const body = () => 'ok'

/** Every entry point that reads a parameter map, a value spec or a structured schema. */
function everyReader(parameters: unknown, value: unknown): void {
  codedOrFine(() => defineTool({ name: 't', description: 'd', parameters: parameters as ParameterSchemaSpec, execute: body }))
  codedOrFine(() => defineParameters(parameters as ParameterSchemaSpec))
  codedOrFine(() => compileParameters(parameters as ParameterSchemaSpec, { cache: false }))
  codedOrFine(() => schemaSpecToJsonSchema(parameters as ParameterSchemaSpec))
  codedOrFine(() => defineValueSchema(value as ValueSchemaSpec))
  codedOrFine(() => compileValueSchema(value as ValueSchemaSpec, { cache: false }))
  codedOrFine(() =>
    defineTool({ name: 't', description: 'd', parameters: {}, output: { schema: value as ValueSchemaSpec, render: () => 'x' }, execute: () => null as never }),
  )
  codedOrFine(() => assertSupportedOutputSchema(value))
  codedOrFine(() => validateStructuredValue(value as StructuredSchemaNode, {}))
}

const specs = fc.tuple(parameterMap, valueSpec)

describe('hostile specs: coded errors, never a raw TypeError', () => {
  test('a revoked proxy at any position of a parameter map or a value spec', () => {
    fc.assert(
      fc.property(specs, fc.nat(), fc.nat(), ([parameters, value], pick, pickValue) => {
        const places = containerPaths(parameters)
        const valuePlaces = containerPaths(value)
        everyReader(replaceAt(parameters, places[pick % places.length] as Path, revoked), replaceAt(value, valuePlaces[pickValue % valuePlaces.length] as Path, revoked))
      }),
      { numRuns: 200 },
    )
  })

  test('a getter that throws at any position', () => {
    fc.assert(
      fc.property(specs, fc.nat(), fc.nat(), ([parameters, value], pick, pickValue) => {
        const places = propertyPaths(parameters)
        const valuePlaces = propertyPaths(value)
        fc.pre(places.length > 0 && valuePlaces.length > 0)
        everyReader(getterAt(parameters, places[pick % places.length] as Path, throwing), getterAt(value, valuePlaces[pickValue % valuePlaces.length] as Path, throwing))
      }),
      { numRuns: 200 },
    )
  })

  test('a getter that answers differently each time is read once, and the definition holds the first answer', () => {
    fc.assert(
      fc.property(parameterMap, fc.nat(), (parameters, pick) => {
        const places = propertyPaths(parameters)
        fc.pre(places.length > 0)
        let reads = 0
        // The first read answers the original; every later read a spec that is not supported.
        const flaky = getterAt(parameters, places[pick % places.length] as Path, (original) => () => (reads++ === 0 ? original : { type: 'nope' }))
        const tool = defineTool({ name: 't', description: 'd', parameters: flaky as ParameterSchemaSpec, execute: body })
        expect(reads).toBe(1)
        expect(tool.parameters).toEqual(schemaSpecToJsonSchema(parameters as unknown as ParameterSchemaSpec))
      }),
      { numRuns: 200 },
    )
  })

  test('the tool spec, output and options themselves: revoked, throwing, or not objects', () => {
    const parameters = { path: { type: 'string', required: true } } as const
    const tools: unknown[] = [
      revoked(),
      { name: 't', description: 'd', parameters, execute: body, output: revoked() },
      {
        name: 't',
        description: 'd',
        parameters,
        execute: body,
        get output(): never {
          throw new Error('output getter')
        },
      },
      {
        get name(): never {
          throw new Error('name getter')
        },
      },
      new Proxy({}, { ownKeys: () => { throw new Error('ownKeys trap') } }),
      [],
      'bash',
    ]
    for (const spec of tools) {
      let thrown: unknown
      try {
        defineTool(spec as never)
      } catch (error) {
        thrown = error
      }
      expect((thrown as { code?: string }).code, String(thrown)).toBe('INVALID_TOOL_DEFINITION')
    }
    const hostileOptions = [revoked(), { get cache(): never { throw new Error('cache getter') } }]
    for (const options of hostileOptions) {
      expect(compileParameters(parameters, options as never).is({ path: 'x' })).toBe(true)
      const validator = compileParameters(parameters)
      expect(validator.validate({}, options as never).ok).toBe(false)
    }
  })

  test('a body return or render that is a revoked proxy is a coded output error', async () => {
    const exec = { callId: 'c', name: 't', arguments: {}, signal: new AbortController().signal } as never
    const tool = defineTool({ name: 't', description: 'd', parameters: {}, execute: () => revoked() as never })
    await expect(tool.invoke({}, exec)).rejects.toMatchObject({ code: 'INVALID_TOOL_OUTPUT' })
    const blocks = defineTool({ name: 't', description: 'd', parameters: {}, execute: () => [revoked()] as never })
    await expect(blocks.execute({}, exec)).rejects.toMatchObject({ code: 'INVALID_TOOL_OUTPUT' })
  })
})

/** A spec DAG: each level an object whose two properties are the same spec object of the level below. */
function sharedLevels(levels: number): Spec {
  let node: Spec = { type: 'string' }
  for (let level = 0; level < levels; level += 1) node = { type: 'object', additionalProperties: false, properties: { x: node, y: node } }
  return node
}

describe('shared sub-schemas and large enums are read, checked and compiled in linear time', () => {
  test('a DAG of 10 shared levels defines, and behaves exactly like the tree it stands for', () => {
    const dag = sharedLevels(10)
    const tree = JSON.parse(JSON.stringify(dag)) as Spec
    const tool = defineTool({ name: 't', description: 'd', parameters: { root: dag as never }, execute: body })
    const treeTool = defineTool({ name: 't', description: 'd', parameters: { root: tree as never }, execute: body })
    expect(tool.parameters).toEqual(treeTool.parameters)
    let value: unknown = 'leaf'
    for (let level = 0; level < 10; level += 1) value = { x: value, y: value }
    const validator = compileParameters({ root: dag } as never)
    expect(validator.is({ root: value })).toBe(true)
    expect(validator.validate({ root: { x: 1 } }).ok).toBe(false)
  })

  test('a DAG of 18 and 22 shared levels is refused as too large (a definition error), without expanding it', () => {
    for (const levels of [18, 22]) {
      let thrown: unknown
      try {
        defineTool({ name: 't', description: 'd', parameters: { root: sharedLevels(levels) as never }, execute: body })
      } catch (error) {
        thrown = error
      }
      expect((thrown as { code?: string }).code).toBe('UNSUPPORTED_SCHEMA')
      expect((thrown as JsonSchemaError).problems).toHaveLength(1)
      expect(String((thrown as Error).message)).toContain('MAX_SCHEMA_SIZE')
      expect(() => assertSupportedOutputSchema(sharedLevels(levels))).toThrow(/MAX_SCHEMA_SIZE/)
      expect(() => defineValueSchema(sharedLevels(levels) as never)).toThrow(/MAX_SCHEMA_SIZE/)
    }
  })

  test('a DAG of 100 shared levels is too deep: reported once where it is too deep, not once per path', () => {
    let thrown: unknown
    try {
      defineParameters({ root: sharedLevels(100) as never })
    } catch (error) {
      thrown = error
    }
    const problems = (thrown as JsonSchemaError).problems
    expect(problems.some((problem) => problem.message === 'the schema nests deeper than 64 levels')).toBe(true)
    expect(problems.length).toBeLessThan(200)
  })

  test('a 100,000-value enum defines, compiles and validates, in parameters and in an output schema', () => {
    const members = Array.from({ length: 100_000 }, (_, index) => `v${index}`)
    const tool = defineTool({
      name: 't',
      description: 'd',
      parameters: { pick: { type: 'string', enum: members, required: true } },
      output: { schema: { type: 'string', enum: members }, render: (_args, value) => value },
      execute: () => 'v99999',
    })
    expect((tool.parameters as unknown as { properties: { pick: { enum: string[] } } }).properties.pick.enum).toHaveLength(100_000)
    const validator = compileParameters({ pick: { type: 'string', enum: members } })
    expect(validator.is({ pick: 'v54321' })).toBe(true)
    expect(validator.is({ pick: 'v100000' })).toBe(false)
  })

  test('a duplicate in a long enum is found where it is, with JSON equality (1 and 1.0 are one number)', () => {
    const members = [...Array.from({ length: 50_000 }, (_, index) => `v${index}`), 'v123']
    expect(() => defineValueSchema({ type: 'string', enum: members })).toThrow(/enum\[50000\]: duplicates an earlier member/)
    expect(() => defineValueSchema({ type: 'number', enum: [1, 2, 1.0] })).toThrow(/enum\[2\]: duplicates an earlier member/)
  })

  test('a definition past MAX_SCHEMA_SIZE is refused: a huge enum, a huge description', () => {
    const members = Array.from({ length: 200_000 }, (_, index) => `value-${index}`)
    expect(() => defineValueSchema({ type: 'string', enum: members })).toThrow(/too large.*MAX_SCHEMA_SIZE/)
    expect(() => defineParameters({ text: { type: 'string', description: 'x'.repeat(1_000_001) } })).toThrow(/MAX_SCHEMA_SIZE/)
    expect(() => defineParameters({ text: { type: 'string', description: 'x'.repeat(900_000) } })).not.toThrow()
  })
})
