// The generated backend's first-violation path. Beside each schema's accept functions (generate-validator.ts) the
// generator writes a locating walk: the same checks in the same reading order, which on the first failure states
// that node's violation (first-violation-reports.ts, with the messages of the closure backend, built by the same
// functions) and adds the path as the walk unwinds. Nothing is walked twice, except a oneOf without a usable tag:
// its closest branch is found by ranking every branch, which its closure check does.
//
// Safety is that of generate-validator.ts: names reach the source only through `stringLiteral`; reporters, messages
// and path pieces are passed in as constants (`k[i]`).
import type { JsonPrimitive } from '@dsh/tools-core'
import { additionalPropertyMessage, anArray, anObject, compileNode } from './compile-validator.js'
import {
  argumentsReporter,
  boundsReporter,
  closestReporter,
  duplicate,
  extraKey,
  finish,
  fromCheck,
  missingReporter,
  nonJson,
  nonJsonExtra,
  propertyPiece,
  scalarReporter,
  typeReporter,
  under,
  unmarkedReporter,
  unknownTagReporter,
  unreadable,
  type Pending,
  type Reporter,
} from './first-violation-reports.js'
import {
  arrayBounds,
  codeGenerationAllowed,
  constant,
  functionOf,
  helpers,
  plainArrayCondition,
  plainObjectCondition,
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

/** A locating walk: `undefined` when the value matches; otherwise its first violation (`null`: see {@link Pending}). */
export type Locate = (value: unknown) => Pending | null | undefined

/**
 * The first violation of a value, found by the locating walk: `undefined` when the value matches, `null` when the
 * walk found nothing where a check failed (a getter or proxy that answers differently: the caller then walks the
 * whole value with the closures). Never throws.
 */
export type FirstViolation = (value: unknown) => Violation | undefined | null

/** A schema's generated code: the accept-only check and the first-violation path. */
export interface GeneratedValidator {
  readonly accept: Accept
  readonly firstViolation: FirstViolation
}

/** What the locating walk calls besides the accept helpers (passed in as `r`, never written into the source). */
const locatorHelpers = { under, nonJson, nonJsonExtra, extraKey, duplicate, unreadable }

// `P` adds a segment to a violation found below; the others state a violation (see first-violation-reports.ts).
const locatorPrelude = 'const{under:P,nonJson:J,nonJsonExtra:X,extraKey:E,duplicate:U,unreadable:T}=r;'

/** The items of an array without `items`: any lossless JSON. */
const anyJson: JsonNode = { kind: 'json', annotations: {} }

interface Locating {
  readonly generator: Generator
  readonly names: Map<SchemaNode, string>
  readonly root: SchemaNode
  readonly rootCheck: Check
}

/** The expression (`k[3]`) of a reporter passed in as a constant. */
function reporter(locating: Locating, report: Reporter | ((inner: Pending | null) => Pending | null)): string {
  return constant(locating.generator, report)
}

/**
 * An expression that is `undefined` when `x` matches `node`, and otherwise its first violation: inline for
 * scalars and `json`, a call of the node's locating function otherwise.
 */
function locateIn(locating: Locating, node: SchemaNode, x: string): string {
  const failure = failureOf(locating, node, x)
  return failure === undefined ? `${locatorOf(locating, node as ObjectNode | ArrayNode | OneOfNode)}(${x})` : `(${failure.test}?undefined:${failure.report})`
}

/** For a scalar or `json` node: its inline test of `x`, and the expression of its violation where the test fails. */
function failureOf(locating: Locating, node: SchemaNode, x: string): { test: string; report: string } | undefined {
  if (node.kind === 'json') return { test: `isJson(${x})`, report: `J(${x})` }
  if (node.kind === 'object' || node.kind === 'array' || node.kind === 'oneOf') return undefined
  return { test: test(locating.generator, node, x), report: `${reporter(locating, scalarReporter(node))}(${x})` }
}

/**
 * The statement that checks `x` (read under `segment`, shown as `piece`) and returns its violation, with the
 * segment added, when it fails. A scalar's test stays a plain condition, as in the accept functions.
 */
function checkStatement(locating: Locating, node: SchemaNode, segment: string, piece: string): string {
  const failure = failureOf(locating, node, 'x')
  if (failure !== undefined) return `if(!(${failure.test}))return P(${failure.report},${segment},${piece});`
  return `{const e=${locateIn(locating, node, 'x')};if(e!==undefined)return P(e,${segment},${piece})}`
}

/** The name of the locating function of an object, array or oneOf node, generating it the first time. */
function locatorOf(locating: Locating, node: ObjectNode | ArrayNode | OneOfNode): string {
  const known = locating.names.get(node)
  if (known !== undefined) return known
  const name = `g${locating.names.size}`
  locating.names.set(node, name)
  if (node.kind === 'oneOf') {
    locating.generator.functions.push(`function ${name}(v){${oneOfLocator(locating, node)}}`)
    return name
  }
  const body = node.kind === 'object' ? objectLocator(locating, node) : arrayLocator(locating, node)
  // A throw while reading this value is this node's to report (its children catch their own).
  locating.generator.functions.push(`function ${name}(v){try{${body}}catch(error){return T(error)}}`)
  return name
}

/** The most required properties of an object marked in a bit set by its locating walk. */
const maxMarked = 30

function objectLocator(locating: Locating, node: ObjectNode): string {
  // At the root, pieces are written without a leading dot (see `propertyPiece`).
  const root = node === locating.root
  const notAnObject = reporter(locating, root && node.implicit ? argumentsReporter : typeReporter(anObject))
  // Required properties seen are marked in a bit set (counted, past 30 of them); the missing one is then named
  // without reading the value again.
  const required: string[] = []
  const marked = node.properties.filter((property) => property.required).length <= maxMarked
  const cases = node.properties.map((property) => {
    const count = property.required ? (marked ? `r|=${2 ** required.length};` : 'r++;') : ''
    if (property.required) required.push(property.name)
    const piece = constant(locating.generator, propertyPiece(property.name, root))
    return `case ${stringLiteral(property.name)}:${checkStatement(locating, property.node, 'key', piece)}${count}break;`
  })
  const fallback = node.additionalProperties
    ? `default:if(!isJson(x))return X(key,x,${root});`
    : `default:return E(${constant(locating.generator, additionalPropertyMessage(node))},key,${root});`
  const all = marked ? 2 ** required.length - 1 : required.length
  const missing =
    required.length === 0 ? 'return undefined' : `return r===${all}?undefined:${reporter(locating, marked ? unmarkedReporter(required, root) : missingReporter(required, root))}(${marked ? 'r' : 'v'})`
  return (
    `if(${plainObjectCondition})return ${notAnObject}(v);let r=0;` +
    `for(const key in v){if(!Object.prototype.hasOwnProperty.call(v,key))continue;const x=v[key];` +
    `switch(key){${cases.join('')}${fallback}}}` +
    missing
  )
}

function arrayLocator(locating: Locating, node: ArrayNode): string {
  const unique = node.constraints?.uniqueItems === true
  const bounds = arrayBounds(node)
  const limits = boundsReporter(node.constraints?.minItems ?? 0, node.constraints?.maxItems ?? Number.POSITIVE_INFINITY)
  const outOfBounds = bounds === '' ? '' : `if(${bounds})return ${reporter(locating, limits)}(n);`
  const element = checkStatement(locating, node.items ?? anyJson, 'i', '"["+i+"]"')
  return (
    `if(${plainArrayCondition})return ${reporter(locating, typeReporter(anArray))}(v);` +
    `const n=v.length;${outOfBounds}` +
    `const p=v.__proto__===AP?AP:getPrototypeOf(v);${unique ? 'const u=[];' : ''}` +
    `for(let i=0;i<n;i++){const x=i in p&&!hop.call(v,i)?undefined:v[i];${element}${unique ? 'u.push(x);' : ''}}` +
    (unique ? 'const d=dup(u);return d===undefined?undefined:U(d)' : 'return undefined')
  )
}

/**
 * A oneOf: with a discriminator and an own tag, the tag's branch is walked and its first violation becomes the
 * detail of the oneOf's; a tag that selects no branch is reported as such. Without a tag (or a discriminator) the
 * closest branch is found by ranking them all, which the closure check does.
 */
function oneOfLocator(locating: Locating, node: OneOfNode): string {
  const total = node.branches.length
  const accept = functionOf(locating.generator, node)
  const ranked = `return ${accept}(v)?undefined:${reporter(locating, fromCheck(checkOf(locating, node)))}(v)`
  const discriminator = discriminatorOf(node.branches)
  if (discriminator === undefined) return ranked
  const name = stringLiteral(discriminator.name)
  const cases = [...discriminator.branches].map(([literal, index]) => {
    const branch = node.branches[index] as ObjectNode
    const closest = reporter(locating, closestReporter(total, index, describeShape(branch)))
    return `case ${scalarLiteral(literal as JsonPrimitive)}:{const e=${locatorOf(locating, branch)}(v);return e===undefined?undefined:${closest}(e)}`
  })
  const unknown = reporter(locating, unknownTagReporter(total, discriminator.name, discriminator.literals))
  return (
    `let t;if(typeof v==="object"&&v!==null){try{t=hop.call(v,${name})?v[${name}]:undefined}catch(error){t=undefined}}` +
    `if(t!==undefined){switch(t){${cases.join('')}default:return ${unknown}(t)}}` +
    ranked
  )
}

function checkOf(locating: Locating, node: SchemaNode): Check {
  return node === locating.root ? locating.rootCheck : compileNode(node)
}

/** How many sources were generated in this process (each one's number makes its text unique). */
let sourceCount = 0

/**
 * Generates the accept-only check and the locating walk of `node` (whose closure check is `rootCheck`), or
 * `undefined` when the host forbids code generation or the schema has more than `MAX_GENERATED_NODES` distinct
 * nodes (the caller then uses the closures).
 */
export function generateValidator(node: SchemaNode, rootCheck: Check): GeneratedValidator | undefined {
  if (!codeGenerationAllowed()) return undefined
  const generator: Generator = { root: node, constants: [], functions: [], names: new Map(), inlined: new Set(), budget: 0 }
  const locating: Locating = { generator, names: new Map(), root: node, rootCheck }
  let accept: string
  let locate: string
  try {
    accept = node.kind === 'json' ? 'isJson' : functionOf(generator, node)
    if (node.kind === 'object' || node.kind === 'array' || node.kind === 'oneOf') locate = locatorOf(locating, node)
    else {
      locate = 'g'
      generator.functions.push(`function g(v){return ${locateIn(locating, node, 'v')}}`)
    }
  } catch (error) {
    if (error === tooLarge) return undefined
    throw error
  }
  // Each source is made unique (its number, in a trailing comment), so that V8 never hands two schemas with the
  // same shape the same compiled script: functions of a script created more than once are optimized without
  // knowing their helpers (the unpacked `h`), and valid nested input then took about a fifth longer.
  const source = `${prelude}${locatorPrelude}${generator.functions.join('\n')}\nreturn[${accept},${locate}]\n//${++sourceCount}`
  const factory = new Function('k', 'h', 'r', source) as (constants: unknown[], host: typeof helpers, locator: typeof locatorHelpers) => [Accept, Locate]
  const [acceptFunction, locateFunction] = factory(generator.constants, helpers, locatorHelpers)
  return { accept: acceptFunction, firstViolation: firstViolationWith(locateFunction, node.kind !== 'object' && node.kind !== 'array') }
}

/** `firstViolation` over a locating walk: the violation it returns, finished (see `finish` for `trim`). */
function firstViolationWith(locate: Locate, trim: boolean): FirstViolation {
  return (value) => {
    let pending: Pending | null | undefined
    try {
      pending = locate(value)
    } catch {
      // Only through the engine's own limits (the walk catches what reading throws): the closures report it.
      return null
    }
    return pending === undefined || pending === null ? pending : finish(pending, trim)
  }
}
