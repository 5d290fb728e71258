// The generated backend's first-violation path. Beside each schema's accept functions (generate-validator.ts) the
// generator writes a locating walk: the same checks in the same reading order, which on the first failure states
// that node's violation (first-violation-reports.ts, with the messages of the closure backend, built by the same
// functions). Child objects and arrays are walked inline, as in the accept check, so the violation is built where it
// is found, with its whole path inside the function written out; a call's answer gets the path above it from its
// caller. Nothing is walked twice, except a oneOf without a usable tag: its closest branch is found by ranking every
// branch, which its closure check does.
//
// Safety is that of generate-validator.ts: names and path pieces reach the source only through `stringLiteral`;
// reporters and messages are passed in as constants (`k[i]`).
import type { JsonPrimitive } from '@dsh/tools-core'
import { additionalPropertyMessage, anArray, anObject, compileNode } from './compile-validator.js'
import {
  argumentsReporter,
  boundsReporter,
  closestReporter,
  duplicate,
  extraKey,
  fromCheck,
  missingReporter,
  nonJson,
  nonJsonExtra,
  propertyPiece,
  scalarReporter,
  typeReporter,
  unmarkedReporter,
  unknownTagReporter,
  unreadable,
  within,
  type Pending,
  type Reporter,
} from './first-violation-reports.js'
import {
  arrayBounds,
  codeGenerationAllowed,
  constant,
  functionOf,
  INLINE_BUDGET,
  INLINE_DEPTH,
  helpers,
  plainArrayConditionOf,
  plainObjectConditionOf,
  prelude,
  scalarLiteral,
  stringLiteral,
  test,
  tooLarge,
  type Accept,
  type Generator,
} from './generate-validator.js'
import type { ArrayNode, JsonNode, ObjectNode, OneOfNode, SchemaNode } from './schema-node.js'
import type { Check } from './validation-sink.js'
import { describeShape, discriminatorOf } from './value-rules.js'
import type { Violation } from './violation.js'

/**
 * The first violation of a value, or `undefined` when it matches. Never throws. The generated one is a function of
 * the schema's own source: only the reporters and the helpers that build the violation are shared code (see
 * `generateValidator`).
 */
export type FirstViolation = (value: unknown) => Violation | undefined

/** A schema's generated code: the accept-only check and the first-violation path. */
export interface GeneratedValidator {
  readonly accept: Accept
  readonly firstViolation: FirstViolation
}

/** What the locating walk calls besides the accept helpers (passed in as `r`, never written into the source). */
const locatorHelpers = { within, nonJson, nonJsonExtra, extraKey, duplicate, unreadable }

// `W` puts a violation found below under the path where it was found; the others state a violation (see
// first-violation-reports.ts).
const locatorPrelude = 'const{within:W,nonJson:J,nonJsonExtra:X,extraKey:E,duplicate:U,unreadable:T}=r;'

/** The items of an array without `items`: any lossless JSON. */
const anyJson: JsonNode = { kind: 'json', annotations: {} }

interface Locating {
  readonly generator: Generator
  readonly names: Map<SchemaNode, string>
  /** Object and array nodes whose walks were written inline, inside the locating function of a node above them. */
  readonly inlined: Set<SchemaNode>
  readonly root: SchemaNode
  readonly rootCheck: Check
  /** How many more walks the function being written may hold inline. */
  budget: number
}

/**
 * Where the walk is, inside the function being written: the segments from the function's value down (JavaScript
 * expressions: a name's literal, or an index variable) and the path's pieces (text, or an index variable's name).
 * `first` is true while nothing has been written into a path that starts at the schema's root: the next property
 * piece is then written without its dot (see `propertyPiece`). Inside a `oneOf` branch, `wrap` turns what the branch
 * finds into the `oneOf`'s own violation (the reporter's expression), which is then placed at `outer`.
 */
interface Place {
  readonly segments: readonly string[]
  readonly pieces: readonly (string | { readonly index: string })[]
  readonly first: boolean
  readonly wrap?: { readonly reporter: string; readonly outer: Place }
}

/** The place of a function's own value (`first` at the schema's root). */
function origin(first: boolean): Place {
  return { segments: [], pieces: [], first }
}

/** A place one property further down. */
function property(place: Place, name: string): Place {
  return { ...place, segments: [...place.segments, stringLiteral(name)], pieces: [...place.pieces, propertyPiece(name, place.first)], first: false }
}

/** A place one element (the index variable `i`) further down. */
function element(place: Place, i: string): Place {
  return { ...place, segments: [...place.segments, i], pieces: [...place.pieces, { index: i }], first: false }
}

/** The path of a place as an expression: its text pieces joined into literals, indexes written `[i]`. */
function pathExpression(place: Place): string {
  const parts: string[] = []
  let text = ''
  for (const piece of place.pieces) {
    if (typeof piece === 'string') text += piece
    else {
      parts.push(stringLiteral(`${text}[`), piece.index)
      text = ']'
    }
  }
  if (text !== '' || parts.length === 0) parts.push(stringLiteral(text))
  return parts.join('+')
}

/**
 * The expression that returns the violation `pending` (found at `place`, or below it), its path completed: the
 * violation itself when the place is the function's own value.
 */
function at(place: Place, pending: string): string {
  const placed = place.segments.length === 0 ? pending : `W(${pending},[${place.segments.join(',')}],${pathExpression(place)})`
  return place.wrap === undefined ? placed : at(place.wrap.outer, `${place.wrap.reporter}(${placed})`)
}

/** The expression (`k[3]`) of a reporter passed in as a constant. */
function reporter(locating: Locating, report: Reporter | ((inner: Pending | null) => Pending | null)): string {
  return constant(locating.generator, report)
}

/** For a scalar or `json` node: its inline test of `x`, and the expression of its violation where the test fails. */
function failureOf(locating: Locating, node: SchemaNode, x: string): { test: string; report: string } | undefined {
  if (node.kind === 'json') return { test: `isJson(${x})`, report: `J(${x})` }
  if (node.kind === 'object' || node.kind === 'array' || node.kind === 'oneOf') return undefined
  return { test: test(locating.generator, node, x), report: `${reporter(locating, scalarReporter(node))}(${x})` }
}

/**
 * The statements that check `x` (the value at `place`, `d` levels into the function) against `node` and return its
 * first violation, its path complete, when it fails; they fall through when it holds. A scalar's test is a plain
 * condition, as in the accept functions. An object's or array's walk is written inline the first time the node is
 * met, while the function's budget lasts: the violation is then built where it is found, its segments and path
 * written out in one expression, instead of being passed up through a call per level (the bench's nested schema,
 * timed in interleaved bursts: 78 against 106 ns). Each inline walk has a `try` of its own, so that a throw while
 * reading a value is reported at that value, as its own function would. Any other node is a call.
 */
function locateStatements(locating: Locating, node: SchemaNode, x: string, place: Place, d: number): string {
  const failure = failureOf(locating, node, x)
  if (failure !== undefined) return `if(!(${failure.test}))return ${at(place, failure.report)};`
  const container = node as ObjectNode | ArrayNode | OneOfNode
  const inline = d < INLINE_DEPTH && locating.budget > 0 && !locating.names.has(node) && !locating.inlined.has(node)
  if (!inline) return `{const e=${locatorOf(locating, container)}(${x});if(e!==undefined)return ${at(place, 'e')}}`
  locating.budget--
  locating.inlined.add(node)
  // A oneOf reads nothing but its tag, under a catch of its own; its branches are walks with their own.
  if (container.kind === 'oneOf') return oneOfWalk(locating, container, x, place, d)
  const body = container.kind === 'object' ? objectWalk(locating, container, x, place, d) : arrayWalk(locating, container, x, place, d)
  return `try{${body}}catch(error){return ${at(place, 'T(error)')}}`
}

/** The name of the locating function of an object, array or oneOf node, generating it the first time. */
function locatorOf(locating: Locating, node: ObjectNode | ArrayNode | OneOfNode): string {
  const known = locating.names.get(node)
  if (known !== undefined) return known
  const name = `g${locating.names.size}`
  locating.names.set(node, name)
  const outer = locating.budget
  locating.budget = INLINE_BUDGET
  // At the root, the first piece of a path is written without its dot (see `propertyPiece`).
  const place = origin(node === locating.root)
  let body: string
  if (node.kind === 'oneOf') body = oneOfWalk(locating, node, 'v', place, 0)
  else {
    // A throw while reading this value is this node's to report (inline walks and calls below catch their own).
    const walk = node.kind === 'object' ? objectWalk(locating, node, 'v', place, 0) : arrayWalk(locating, node, 'v', place, 0)
    body = `try{${walk}}catch(error){return T(error)}`
  }
  locating.budget = outer
  locating.generator.functions.push(`function ${name}(v){${body}return undefined}`)
  return name
}

/** The most required properties of an object marked in a bit set by its locating walk. */
const maxMarked = 30

/**
 * An object `v` at `place` (locals suffixed with `d`): its keys in the order they are read, each declared value
 * read in its key's case by its constant name (V8 answers that from the object's shape; a load by the loop's key
 * goes through the enumeration cache: about a fifth slower on the bench's array of file objects).
 */
function objectWalk(locating: Locating, node: ObjectNode, v: string, place: Place, d: number): string {
  const { first } = place
  const [r, key, x] = [`r${d}`, `key${d}`, `x${d}`]
  const notAnObject = reporter(locating, first && node.implicit ? argumentsReporter : typeReporter(anObject))
  // Required properties seen are marked in a bit set (counted, past 30 of them); the missing one is then named
  // without reading the value again.
  const required: string[] = []
  const marked = node.properties.filter((property) => property.required).length <= maxMarked
  const cases = node.properties.map((declared) => {
    const count = declared.required ? (marked ? `${r}|=${2 ** required.length};` : `${r}++;`) : ''
    if (declared.required) required.push(declared.name)
    const name = stringLiteral(declared.name)
    return `case ${name}:{const ${x}=${v}[${name}];${locateStatements(locating, declared.node, x, property(place, declared.name), d + 1)}${count}break}`
  })
  const fallback = node.additionalProperties
    ? `default:{const ${x}=${v}[${key}];if(!isJson(${x}))return ${at(place, `X(${key},${x},${first})`)}}`
    : `default:return ${at(place, `E(${constant(locating.generator, additionalPropertyMessage(node))},${key},${first})`)};`
  const all = marked ? 2 ** required.length - 1 : required.length
  const missing = () => reporter(locating, marked ? unmarkedReporter(required, first) : missingReporter(required, first))
  return (
    `if(${plainObjectConditionOf(v)})return ${at(place, `${notAnObject}(${v})`)};${required.length === 0 ? '' : `let ${r}=0;`}` +
    `for(const ${key} in ${v}){if(!Object.prototype.hasOwnProperty.call(${v},${key}))continue;` +
    `switch(${key}){${cases.join('')}${fallback}}}` +
    (required.length === 0 ? '' : `if(${r}!==${all})return ${at(place, `${missing()}(${marked ? r : v})`)};`)
  )
}

/** An array `v` at `place`: a plain array, its length within bounds, every element read as an own property, then duplicates. */
function arrayWalk(locating: Locating, node: ArrayNode, v: string, place: Place, d: number): string {
  const unique = node.constraints?.uniqueItems === true
  const [n, p, u, i, x] = [`n${d}`, `p${d}`, `u${d}`, `i${d}`, `x${d}`]
  const bounds = arrayBounds(node, n)
  const limits = boundsReporter(node.constraints?.minItems ?? 0, node.constraints?.maxItems ?? Number.POSITIVE_INFINITY)
  const outOfBounds = bounds === '' ? '' : `if(${bounds})return ${at(place, `${reporter(locating, limits)}(${n})`)};`
  const check = locateStatements(locating, node.items ?? anyJson, x, element(place, i), d + 1)
  return (
    `if(${plainArrayConditionOf(v)})return ${at(place, `${reporter(locating, typeReporter(anArray))}(${v})`)};` +
    `const ${n}=${v}.length;${outOfBounds}` +
    `const ${p}=${v}.__proto__===AP?AP:getPrototypeOf(${v});${unique ? `const ${u}=[];` : ''}` +
    `for(let ${i}=0;${i}<${n};${i}++){const ${x}=${i} in ${p}&&!hop.call(${v},${i})?undefined:${v}[${i}];${check}${unique ? `${u}.push(${x});` : ''}}` +
    (unique ? `{const e=dup(${u});if(e!==undefined)return ${at(place, 'U(e)')}}` : '')
  )
}

/**
 * A oneOf `v` at `place`: with a discriminator and an own tag, the tag's branch is walked (inline, like any child,
 * or a call) and its first violation becomes the detail of the oneOf's; a tag that selects no branch is reported
 * as such. Without a tag (or a discriminator) the closest branch is found by ranking them all, which the closure
 * check does.
 */
function oneOfWalk(locating: Locating, node: OneOfNode, v: string, place: Place, d: number): string {
  const total = node.branches.length
  const accept = functionOf(locating.generator, node)
  const ranked = `if(!${accept}(${v}))return ${at(place, `${reporter(locating, fromCheck(checkOf(locating, node)))}(${v})`)};`
  const discriminator = discriminatorOf(node.branches)
  if (discriminator === undefined) return ranked
  const name = stringLiteral(discriminator.name)
  const t = `t${d}`
  const cases = [...discriminator.branches].map(([literal, index]) => {
    const branch = node.branches[index] as ObjectNode
    const closest = reporter(locating, closestReporter(total, index, describeShape(branch)))
    // The branch's own pieces keep their dot: `closestReporter` shows its path without it.
    const inBranch: Place = { ...origin(false), wrap: { reporter: closest, outer: place } }
    return `case ${scalarLiteral(literal as JsonPrimitive)}:${locateStatements(locating, branch, v, inBranch, d)}break;`
  })
  const unknown = reporter(locating, unknownTagReporter(total, discriminator.name, discriminator.literals))
  return (
    `let ${t};if(typeof ${v}==="object"&&${v}!==null){try{${t}=hop.call(${v},${name})?${v}[${name}]:undefined}catch(error){${t}=undefined}}` +
    `if(${t}!==undefined){switch(${t}){${cases.join('')}default:return ${at(place, `${unknown}(${t})`)}}}else ${ranked}`
  )
}

function checkOf(locating: Locating, node: SchemaNode): Check {
  return node === locating.root ? locating.rootCheck : compileNode(node)
}

/** How many sources were generated in this process (each one's number makes its text unique). */
let sourceCount = 0

/**
 * Generates the accept-only check and the first-violation path of `node` (whose closure check is `rootCheck`), or
 * `undefined` when the host forbids code generation or the schema has more than `MAX_GENERATED_NODES` distinct
 * nodes (the caller then uses the closures). `closures` answers where the locating walk cannot: where the node that
 * failed, read again, found nothing (a getter or proxy that answers differently), or where the engine's own limits
 * stopped the walk.
 */
export function generateValidator(node: SchemaNode, rootCheck: Check, closures: FirstViolation): GeneratedValidator | undefined {
  if (!codeGenerationAllowed()) return undefined
  const generator: Generator = { root: node, constants: [], functions: [], names: new Map(), inlined: new Set(), budget: 0 }
  const locating: Locating = { generator, names: new Map(), inlined: new Set(), root: node, rootCheck, budget: 0 }
  let accept: string
  let locate: string
  try {
    accept = node.kind === 'json' ? 'isJson' : functionOf(generator, node)
    if (node.kind === 'object' || node.kind === 'array' || node.kind === 'oneOf') locate = locatorOf(locating, node)
    else {
      locate = 'g'
      generator.functions.push(`function g(v){${locateStatements(locating, node, 'v', origin(true), 0)}return undefined}`)
    }
  } catch (error) {
    if (error === tooLarge) return undefined
    throw error
  }
  // The entry point is written into the source too, with the finishing of the violation, as `is` is the accept
  // function itself: no wrapper shared by every schema (which would see every schema's walk and violations) stands
  // between a call and the schema's own code. A walk from an object or array root writes its first piece without a
  // dot; any other root's path is shown without its leading one (reading its first character flattens the string,
  // so only there).
  const fallback = constant(generator, closures)
  const trim = node.kind === 'object' || node.kind === 'array' ? '' : 'if(p.path.charCodeAt(0)===46)p.path=p.path.slice(1);'
  generator.functions.push(
    `function F(v){let p;try{p=${locate}(v)}catch(error){return ${fallback}(v)}` +
      `if(p===undefined)return undefined;if(p===null)return ${fallback}(v);${trim}if(p.segments===null)p.segments=[];return p}`,
  )
  // Each source is made unique (its number, in a trailing comment), so that V8 never hands two schemas with the
  // same shape the same compiled script: functions of a script created more than once are optimized without
  // knowing their helpers (the unpacked `h`), and valid nested input then took about a fifth longer.
  const source = `${prelude}${locatorPrelude}${generator.functions.join('\n')}\nreturn[${accept},F]\n//${++sourceCount}`
  const factory = new Function('k', 'h', 'r', source) as (constants: unknown[], host: typeof helpers, locator: typeof locatorHelpers) => [Accept, FirstViolation]
  const [acceptFunction, firstViolation] = factory(generator.constants, helpers, locatorHelpers)
  return { accept: acceptFunction, firstViolation }
}
