import type { StandardJsonSchemaOptions } from './standard-schema.js'

// What tools-schema knows about particular Standard Schema libraries, all of it in this file: the options their
// converters are asked with (so every library follows one rule: refinements are enforced by validation and left out
// of the JSON Schema; types and transforms with no JSON form are definition errors), what to tell an author whose
// library lacks Standard JSON Schema, and how their issue messages repeat what our violations already show.

const TARGET = 'draft-2020-12'

function unsendable(what: string): () => never {
  return () => {
    throw new Error(`${what} has no JSON form`)
  }
}

/**
 * arktype's Standard JSON Schema converter never throws: it replaces what JSON Schema cannot say with the nearest
 * looser schema, `{}` for a `Date`. Its `fallback` option (passed as `libraryOptions`) restores a refusal for types
 * with no JSON form; a narrow (`predicate`), a second pattern and a default that is not JSON keep arktype's
 * fallback, as zod keeps refinements out of its JSON Schema: validation still enforces them.
 */
const arktypeFallback = Object.freeze({
  arrayObject: unsendable('an array with extra properties'),
  arrayPostfix: unsendable('a tuple element after a variadic part'),
  date: unsendable('a Date'),
  domain: (context: { readonly domain?: unknown }) => unsendable(`a value of type ${String(context.domain)}`)(),
  proto: (context: { readonly proto?: { readonly name?: unknown } }) => unsendable(`an instance of ${String(context.proto?.name ?? 'a class')}`)(),
  symbolKey: unsendable('a symbol key'),
  unit: (context: { readonly unit?: unknown }) => unsendable(`the value ${typeof context.unit === 'symbol' ? 'symbol' : String(context.unit)}`)(),
})

/** valibot's refinements: @valibot/to-json-schema throws for them unless told to leave them out. */
const valibotRefinements = Object.freeze(['check', 'check_items', 'partial_check', 'raw_check'])

const converterOptions: Readonly<Record<string, StandardJsonSchemaOptions>> = Object.freeze({
  arktype: Object.freeze({ target: TARGET, libraryOptions: Object.freeze({ fallback: arktypeFallback }) }),
  valibot: Object.freeze({ target: TARGET, libraryOptions: Object.freeze({ ignoreActions: valibotRefinements }) }),
})
const defaultOptions: StandardJsonSchemaOptions = Object.freeze({ target: TARGET })

/** The options `~standard.jsonSchema.input/output` are called with, for a library named `vendor`. */
export function converterOptionsFor(vendor: string): StandardJsonSchemaOptions {
  return Object.prototype.hasOwnProperty.call(converterOptions, vendor) ? (converterOptions[vendor] as StandardJsonSchemaOptions) : defaultOptions
}

const missingAdvice: Readonly<Record<string, string>> = Object.freeze({
  zod: 'use zod ≥ 4.2, whose schemas implement it',
  valibot:
    'valibot schemas do not implement it themselves: wrap the schema with toStandardJsonSchema(schema) from @valibot/to-json-schema (≥ 1.5)',
  arktype: 'use arktype ≥ 2.1.28, whose types implement it',
})

/** What an author whose `vendor` schema has no `~standard.jsonSchema` should do. */
export function missingJsonSchemaAdvice(vendor: string): string {
  return Object.prototype.hasOwnProperty.call(missingAdvice, vendor)
    ? (missingAdvice[vendor] as string)
    : `use a version of ${vendor} that implements it, or wrap the schema in one that does`
}

/**
 * How a library's message names the offending value (`(was 1.5)`, `but received "x"`, `: Received 1.5`): dropped when our violation
 * names it itself (`, got the number 1.5`).
 */
const valueSuffixes: Readonly<Record<string, RegExp>> = Object.freeze({
  arktype: / \(was [^]*\)$/,
  valibot: /(?: but received|: Received) [^]*$/,
})

/**
 * A library's issue message in our form: without the path it may start with (`tags[0].k must be …`: the violation
 * carries the path) and, when `namesValue`, without its own naming of the value.
 */
export function issueMessage(vendor: string, message: string, path: string, namesValue: boolean): string {
  let text = path !== '' && message.startsWith(`${path} `) ? message.slice(path.length + 1) : message
  const suffix = namesValue && Object.prototype.hasOwnProperty.call(valueSuffixes, vendor) ? valueSuffixes[vendor] : undefined
  if (suffix !== undefined) text = text.replace(suffix, '')
  return text === '' ? message : text
}

const { toString: objectToString, hasOwnProperty } = Object.prototype
const ASYNC_TAGS = new Set(['[object AsyncFunction]', '[object AsyncGeneratorFunction]'])
/** How many zod nodes {@link zodAsyncFunction} visits at most: far more than any tool's parameters. */
const ZOD_WALK_LIMIT = 5000

function isAsyncFunction(value: unknown): boolean {
  return typeof value === 'function' && ASYNC_TAGS.has(objectToString.call(value))
}

/** An own property's value (an own getter is called, as zod itself calls the lazy `shape` of an object's def). */
function own(node: object, key: string): unknown {
  return hasOwnProperty.call(node, key) ? (node as Record<string, unknown>)[key] : undefined
}

/**
 * Whether a zod 4 schema holds an `async` function as a refinement or check (`.refine(async …)`,
 * `.check(async …)`): zod runs those only in `parseAsync` and, when asked synchronously (as a tool schema is), drops
 * the promise the function returned, so a rejection would be unhandled. Walks the schema's definition (`_zod.def`,
 * its checks, shapes, elements, options and inner types), not the values it validates; a refinement that is a plain
 * function returning a promise (or `.superRefine(async …)`, which zod wraps) cannot be told apart here. Never throws.
 */
export function zodAsyncFunction(schema: unknown): boolean {
  const seen = new Set<unknown>()
  const pending: unknown[] = [schema]
  try {
    while (pending.length > 0 && seen.size < ZOD_WALK_LIMIT) {
      const node = pending.pop()
      if ((typeof node !== 'object' && typeof node !== 'function') || node === null || seen.has(node)) continue
      seen.add(node)
      const internals = own(node, '_zod')
      if (typeof internals === 'object' && internals !== null) {
        if (isAsyncFunction(own(internals, 'check'))) return true
        pending.push(own(internals, 'def'))
        continue
      }
      if (typeof node === 'function') continue
      for (const key of Object.keys(node)) {
        const value = own(node, key)
        if (isAsyncFunction(value)) return true
        if (typeof value === 'object' && value !== null) pending.push(value)
      }
    }
  } catch {
    // A definition that cannot be walked is left to validation, which refuses a promise when it meets one.
  }
  return false
}

/**
 * zod's own synchronous parse of `schema` (its `safeParse` method), when it has one: unlike `~standard.validate`,
 * which answers any throw of the synchronous parse by starting an asynchronous one, it throws what a refinement
 * threw, and `$ZodAsyncError` only for a schema that is really asynchronous.
 */
export function zodSafeParse(vendor: string, schema: unknown): ((value: unknown) => unknown) | undefined {
  if (vendor !== 'zod' || (typeof schema !== 'object' && typeof schema !== 'function') || schema === null) return undefined
  try {
    const safeParse: unknown = (schema as { safeParse?: unknown }).safeParse
    return typeof safeParse === 'function' ? (value) => (safeParse as (value: unknown) => unknown).call(schema, value) : undefined
  } catch {
    return undefined
  }
}

/** True for the error zod throws when a synchronous parse meets a promise. */
export function isZodAsyncError(error: unknown): boolean {
  try {
    return typeof error === 'object' && error !== null && (error as { constructor?: { name?: unknown } }).constructor?.name === '$ZodAsyncError'
  } catch {
    return false
  }
}

/** A zod `safeParse` answer (`{ success, data }` or `{ success: false, error: { issues } }`) as a Standard Schema result. */
export function zodResult(result: unknown): unknown {
  const { success, data, error } = result as { success?: unknown; data?: unknown; error?: { issues?: unknown } }
  return success === true ? { value: data } : { issues: error?.issues }
}
