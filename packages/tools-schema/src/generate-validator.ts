import { SNAPSHOT_PROTOTYPE } from '@dsh/tools-core'
// The generated backend: JavaScript functions per schema, built with `new Function`, that answer the accept-only
// question (`is`, and the first pass of `validate`) with the same rules as the closures (value-rules.ts,
// constraints.ts). Each schema gets code of its own, so every load in it sees only that schema's shapes and stays
// monomorphic, however many schemas the process holds. `firstViolation` runs the locating walk written beside these
// functions (generate-first-violation.ts, which also assembles the source); `validate`'s list of violations is
// recorded by the closure walk (compile-validator.ts), so messages, paths and their order are the same by
// construction.
//
// Safety: nothing from a spec reaches the source except through `stringLiteral` (JSON text with U+2028/U+2029
// escaped) or `numberLiteral` (a finite number's own text); patterns, large enums and helpers are passed in as
// values (`k[i]`, `h.name`), never written into the source.
import { codePointLength, firstDuplicate, isMultipleOf, patternRegExp, restricts, type Constraints } from './constraints.js'
import { isPlainArrayPrototype, isPlainPrototype } from './plain-object.js'
import type { ArrayNode, ObjectNode, OneOfNode, ScalarNode, SchemaNode } from './schema-node.js'
import { discriminatorOf, hasOwnProperty, isJson, isScalarNode } from './value-rules.js'

/** An accept-only check: `true` when the value matches; never throws. */
export type Accept = (value: unknown) => boolean

/**
 * The most distinct nodes a schema may have to be compiled to generated code. A larger schema (the reader allows up
 * to `MAX_SCHEMA_SIZE` units) compiles to closures, so that generated source stays small enough to compile quickly.
 */
export const MAX_GENERATED_NODES = 2000

let allowed: boolean | undefined

/**
 * Whether the host lets code be generated (`new Function`): false under a Content Security Policy without
 * `unsafe-eval`, or in a worker or runtime that forbids it. Found out once, on first use (never at import), and
 * never throws.
 */
export function codeGenerationAllowed(): boolean {
  if (allowed === undefined) {
    try {
      allowed = (new Function('return 7') as () => unknown)() === 7
    } catch {
      allowed = false
    }
  }
  return allowed
}

/** The helpers the generated code calls, passed in as one object (never written into the source). */
export const helpers = {
  isJson,
  isPlainPrototype,
  isPlainArrayPrototype,
  getPrototypeOf: Object.getPrototypeOf,
  isArray: Array.isArray,
  isInteger: Number.isInteger,
  hop: hasOwnProperty,
  OP: Object.prototype,
  SP: SNAPSHOT_PROTOTYPE,
  AP: Array.prototype,
  cpl: codePointLength,
  mul: isMultipleOf,
  dup: firstDuplicate,
}

/** The source every generated function set starts with: the helpers, unpacked. */
export const prelude = `"use strict";const{isJson,isPlainPrototype,isPlainArrayPrototype,getPrototypeOf,isArray,isInteger,hop,OP,SP,AP,cpl,mul,dup}=h;`

/** A string as a JavaScript string literal: JSON text, with the line separators JSON leaves raw escaped too. */
export function stringLiteral(text: string): string {
  return JSON.stringify(text).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')
}

/** A finite number as a literal, in parentheses (so `-3` and `1e+21` are safe next to any operator). */
function numberLiteral(value: number): string {
  if (!Number.isFinite(value)) throw new TypeError(`not a finite number: ${String(value)}`)
  return `(${String(value)})`
}

/** A JSON primitive as a literal (strings through `stringLiteral`). */
export function scalarLiteral(value: string | number | boolean | null): string {
  if (typeof value === 'string') return stringLiteral(value)
  if (typeof value === 'number') return numberLiteral(value)
  return String(value)
}

/** `x` is not -0 (written after a test that `x` is a number). */
const notNegativeZero = (x: string) => `(${x}!==0||1/${x}>0)`

const typeTests: Record<ScalarNode['kind'], (x: string) => string> = {
  string: (x) => `typeof ${x}==="string"`,
  number: (x) => `(typeof ${x}==="number"&&${x}-${x}===0&&${notNegativeZero(x)})`,
  integer: (x) => `(isInteger(${x})&&${notNegativeZero(x)})`,
  boolean: (x) => `(${x}===true||${x}===false)`,
  null: (x) => `${x}===null`,
}

/** The state of one generation: constants passed in as `k`, the functions written, each node's function name. */
export interface Generator {
  /** The schema's root node: its function is the accept entry point. */
  readonly root: SchemaNode
  readonly constants: unknown[]
  readonly functions: string[]
  readonly names: Map<SchemaNode, string>
  /** Object and array nodes whose checks were written inline, inside the function of a node above them. */
  readonly inlined: Set<SchemaNode>
  /** How many more checks the function being written may hold inline. */
  budget: number
}

/**
 * How many object and array checks one generated function holds inline (the rest are calls; the locating walk of
 * generate-first-violation.ts keeps the same limits).
 */
export const INLINE_BUDGET = 32
/** How deep inline checks nest in one function (deeper ones are calls). */
export const INLINE_DEPTH = 8

/** Counts one more node written (a function or an inline check): past `MAX_GENERATED_NODES`, the schema gets closures. */
function countNode(generator: Generator): void {
  if (generator.names.size + generator.inlined.size > MAX_GENERATED_NODES) throw tooLarge
}

/** A value passed to the generated code as a constant: the expression (`k[3]`) that reads it. */
export function constant(generator: Generator, value: unknown): string {
  generator.constants.push(value)
  return `k[${generator.constants.length - 1}]`
}

/** The name of the generated function of `node`, generating it (and what it calls) the first time. */
export function functionOf(generator: Generator, node: SchemaNode): string {
  const known = generator.names.get(node)
  if (known !== undefined) return known
  const name = `f${generator.names.size}`
  generator.names.set(node, name)
  countNode(generator)
  let body: string
  const outer = generator.budget
  generator.budget = INLINE_BUDGET
  switch (node.kind) {
    case 'object':
      body = `${objectStatements(generator, node, 'v', 0)}return true`
      break
    case 'array':
      body = `${arrayStatements(generator, node, 'v', 0)}return true`
      break
    case 'oneOf':
      body = oneOfBody(generator, node)
      break
    default:
      body = `return ${test(generator, node, 'v')}`
  }
  generator.budget = outer
  // A throw (a getter, a proxy trap, the stack running out) means "no match". Only the entry point and a oneOf
  // catch it: every other check is a conjunction, so a throw anywhere below gives the verdict `false` would give,
  // at the nearest catch, and a oneOf catches each branch's throw on its own (a branch that throws does not match;
  // the others are still counted). With a try in every function, valid nested input took about a sixth longer
  // (92 against 78 ns, the bench's nested schema timed in interleaved bursts).
  const guarded = node === generator.root || node.kind === 'oneOf'
  generator.functions.push(guarded ? `function ${name}(v){try{${body}}catch(error){return false}}` : `function ${name}(v){${body}}`)
  return name
}

/** Thrown (and caught by `generateValidator`, generate-first-violation.ts) when a schema has too many nodes for generated code. */
export const tooLarge = new RangeError('too many schema nodes for generated code')

/** An expression that is true when the variable `x` matches `node`: inline for scalars, a call otherwise. */
export function test(generator: Generator, node: SchemaNode, x: string): string {
  if (node.kind === 'json') return `isJson(${x})`
  if (!isScalarNode(node)) return `${functionOf(generator, node)}(${x})`
  return scalarTest(generator, node, x)
}

function scalarTest(generator: Generator, node: ScalarNode, x: string): string {
  const typeTest = typeTests[node.kind]
  const numeric = node.kind === 'number' || node.kind === 'integer'
  if (node.hasConst) {
    const wanted = node.const
    // A number literal 0 would also accept -0, which lossless JSON rejects.
    return wanted === 0 ? `(${x}===0&&1/${x}>0)` : `${x}===${scalarLiteral(wanted)}`
  }
  const members = node.enum
  if (members !== undefined) {
    // Every member already holds the node's constraints (checked at definition time).
    const guard = numeric && members.includes(0) ? `&&${notNegativeZero(x)}` : ''
    if (members.length > 8) return `(${constant(generator, new Set(members))}.has(${x})${guard})`
    return `((${members.map((member) => `${x}===${scalarLiteral(member)}`).join('||')})${guard})`
  }
  if (!restricts(node.constraints)) return typeTest(x)
  const parts = [typeTest(x), ...(numeric ? numberConstraintTests(node.constraints, x) : stringConstraintTests(generator, node.constraints, x))]
  return `(${parts.join('&&')})`
}

function stringConstraintTests(generator: Generator, constraints: Constraints, x: string): string[] {
  const parts: string[] = []
  const { minLength, maxLength, pattern } = constraints
  // Code points never outnumber UTF-16 units, and never fall below half of them: count only in between.
  if (minLength !== undefined && minLength > 0) parts.push(`(${x}.length>=${minLength * 2}||(${x}.length>=${minLength}&&cpl(${x})>=${minLength}))`)
  if (maxLength !== undefined) parts.push(`(${x}.length<=${maxLength}||cpl(${x})<=${maxLength})`)
  if (pattern !== undefined) parts.push(`${constant(generator, patternRegExp(pattern))}.test(${x})`)
  return parts
}

function numberConstraintTests(constraints: Constraints, x: string): string[] {
  const parts: string[] = []
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = constraints
  if (minimum !== undefined) parts.push(`${x}>=${numberLiteral(minimum)}`)
  if (exclusiveMinimum !== undefined) parts.push(`${x}>${numberLiteral(exclusiveMinimum)}`)
  if (maximum !== undefined) parts.push(`${x}<=${numberLiteral(maximum)}`)
  if (exclusiveMaximum !== undefined) parts.push(`${x}<${numberLiteral(exclusiveMaximum)}`)
  if (multipleOf !== undefined) parts.push(`mul(${x},${numberLiteral(multipleOf)})`)
  return parts
}

/**
 * The plain-object test of `v`, true when it fails (the locating walk writes what to do then). Without `arrays`, an
 * array whose prototype is plain passes it: the caller then rejects arrays itself.
 */
export function plainObjectConditionOf(v: string, arrays = true): string {
  return `typeof ${v}!=="object"||${v}===null||${arrays ? `isArray(${v})||` : ''}(${v}.__proto__!==OP&&getPrototypeOf(${v})!==SP&&!isPlainPrototype(getPrototypeOf(${v})))`
}

/**
 * The statements that check `x` against `node` and `return false` when it fails (falling through when it holds):
 * an object's or an array's check written inline, the first time the node is met and while the function's budget
 * lasts (one function then holds the whole check, which V8 optimizes as one unit: valid nested input took about a
 * sixth longer through a call per object), otherwise a test or a call.
 */
function checkOf(generator: Generator, node: SchemaNode, x: string, depth: number): string {
  const inline = (node.kind === 'object' || node.kind === 'array') && depth < INLINE_DEPTH && generator.budget > 0 && !generator.names.has(node) && !generator.inlined.has(node)
  if (!inline) return `if(!(${test(generator, node, x)}))return false;`
  generator.budget--
  generator.inlined.add(node)
  countNode(generator)
  return `{${node.kind === 'object' ? objectStatements(generator, node, x, depth) : arrayStatements(generator, node, x, depth)}}`
}

/**
 * An object `v` (locals suffixed with `d`, the depth): every own enumerable key looked at once (`for…in`, inherited
 * keys skipped), undeclared ones lossless JSON (open) or a rejection (closed). With up to 30 declared properties the
 * loop only marks which declared keys are own (a bit each) and the values are then read by name, each once: V8
 * answers a load by a constant name from the object's shape, where a load by the loop's key goes through the
 * enumeration cache (closer to ajv's code, about a tenth faster on objects in arrays). Only the verdict is answered
 * here, so the order of the reads does not matter; the locating walk keeps the order of the keys.
 */
function objectStatements(generator: Generator, node: ObjectNode, v: string, d: number): string {
  const { properties } = node
  if (properties.length === 0 || properties.length > 30) return countingObjectStatements(generator, node, v, d)
  const m = `m${d}`
  const key = `key${d}`
  const x = `x${d}`
  let required = 0
  const cases: string[] = []
  const reads: string[] = []
  properties.forEach((property, index) => {
    const bit = 1 << index
    if (property.required) required |= bit
    const name = stringLiteral(property.name)
    cases.push(`case ${name}:${m}|=${bit};break;`)
    // A required property's bit is known to be set once the required mask has been checked: it needs no guard.
    const check = `const ${x}=${v}[${name}];${checkOf(generator, property.node, x, d + 1)}`
    reads.push(property.required ? `{${check}}` : `if(${m}&${bit}){${check}}`)
  })
  const open = node.additionalProperties
  const fallback = open ? `default:if(!isJson(${v}[${key}]))return false;` : 'default:return false;'
  // A closed object is told from an array after its loop: the loop reads no value, and an array reaches it only
  // with a plain prototype set on it (an array's own prototype fails the plain-object test). Its elements' keys are
  // undeclared, so the loop rejects it at the first; one without elements is rejected after the loop. The same
  // verdict, and valid nested input about 3% faster than with the array test first.
  return (
    `if(${plainObjectConditionOf(v, open)})return false;let ${m}=0;` +
    `for(const ${key} in ${v}){if(!Object.prototype.hasOwnProperty.call(${v},${key}))continue;` +
    `switch(${key}){${cases.join('')}${fallback}}}` +
    `if((${m}&${required})!==${required}${open ? '' : `||isArray(${v})`})return false;${reads.join('')}`
  )
}

/** {@link objectStatements} for objects with no or many declared properties: values checked in the loop, required ones counted. */
function countingObjectStatements(generator: Generator, node: ObjectNode, v: string, d: number): string {
  const r = `r${d}`
  const key = `key${d}`
  const x = `x${d}`
  let required = 0
  const cases = node.properties.map((property) => {
    const count = property.required ? `${r}++;` : ''
    if (property.required) required++
    return `case ${stringLiteral(property.name)}:${checkOf(generator, property.node, x, d + 1)}${count}break;`
  })
  const fallback = node.additionalProperties ? `default:if(!isJson(${x}))return false;` : 'default:return false;'
  return (
    `if(${plainObjectConditionOf(v)})return false;let ${r}=0;` +
    `for(const ${key} in ${v}){if(!Object.prototype.hasOwnProperty.call(${v},${key}))continue;const ${x}=${v}[${key}];` +
    `switch(${key}){${cases.join('')}${fallback}}}` +
    `if(${r}!==${required})return false;`
  )
}

/** The plain-array test of `v` (true when `v` is not one). */
export function plainArrayConditionOf(v: string): string {
  return `!isArray(${v})||(${v}.__proto__!==AP&&!isPlainArrayPrototype(getPrototypeOf(${v})))`
}

/** An array's length bounds (its length in `n`), as a condition true when they fail, or `''` when it has none. */
export function arrayBounds(node: ArrayNode, n = 'n'): string {
  const minItems = node.constraints?.minItems
  const maxItems = node.constraints?.maxItems
  return [minItems !== undefined && minItems > 0 ? `${n}<${minItems}` : '', maxItems !== undefined ? `${n}>${maxItems}` : ''].filter(Boolean).join('||')
}

/** An array `v`: a plain array, its length within bounds, every element read as an own property, then duplicates. */
function arrayStatements(generator: Generator, node: ArrayNode, v: string, d: number): string {
  const unique = node.constraints?.uniqueItems === true
  const [n, p, e, i, x] = [`n${d}`, `p${d}`, `e${d}`, `i${d}`, `x${d}`]
  const element = node.items === undefined ? `if(!isJson(${x}))return false;` : checkOf(generator, node.items, x, d + 1)
  const bounds = arrayBounds(node, n)
  return (
    `if(${plainArrayConditionOf(v)})return false;` +
    `const ${n}=${v}.length;${bounds !== '' ? `if(${bounds})return false;` : ''}` +
    `const ${p}=${v}.__proto__===AP?AP:getPrototypeOf(${v});${unique ? `const ${e}=[];` : ''}` +
    `for(let ${i}=0;${i}<${n};${i}++){const ${x}=${i} in ${p}&&!hop.call(${v},${i})?undefined:${v}[${i}];${element}${unique ? `${e}.push(${x});` : ''}}` +
    (unique ? `if(dup(${e})!==undefined)return false;` : '')
  )
}

/**
 * A `oneOf`: with a discriminator, the own tag property selects the only branch that can match; otherwise (or
 * without a tag) exactly one branch must match, stopping at the second.
 */
function oneOfBody(generator: Generator, node: OneOfNode): string {
  const branches = node.branches.map((branch) => functionOf(generator, branch))
  const discriminator = discriminatorOf(node.branches)
  let dispatch = ''
  if (discriminator !== undefined) {
    const name = stringLiteral(discriminator.name)
    const cases = [...discriminator.branches].map(([literal, index]) => `case ${scalarLiteral(literal as string | number | boolean | null)}:return ${branches[index] as string}(v);`)
    dispatch =
      `let t;if(typeof v==="object"&&v!==null){try{t=hop.call(v,${name})?v[${name}]:undefined}catch(error){t=undefined}}` +
      `if(t!==undefined){switch(t){${cases.join('')}default:return false}}`
  }
  // Each branch's throw is caught on its own (the branch does not match), as each closure branch does.
  const counting = branches.map((branch, index) => `try{${index === 0 ? `if(${branch}(v))m++` : `if(${branch}(v)&&++m>1)return false`}}catch(error){}`).join('')
  return `${dispatch}let m=0;${counting}return m===1`
}
