// The generated backend's first-violation path. Beside each schema's accept functions (generate-validator.ts) the
// generator writes a locating walk: the same checks in the same reading order, which on the first failure stops and
// says where (the path, as the walk unwinds) and which node failed there, on which value. The message is then
// recorded by that one node's closure check (compile-validator.ts) on that one value, so messages, keywords and
// paths are those of the closure walk by construction, and only the failing node is walked twice: a scalar that
// failed is described on its own; an object or array that failed in itself (a missing required property, an
// undeclared key, a bound) is re-read one level deep, its valid children answered by their accept checks.
//
// Safety is that of generate-validator.ts: names reach the source only through `stringLiteral`; checks and path
// pieces are passed in as constants (`k[i]`).
import type { JsonPathSegment } from '@dsh/tools-core'
import { compileNode } from './compile-validator.js'
import {
  arrayBounds,
  codeGenerationAllowed,
  constant,
  functionOf,
  helpers,
  plainArrayCondition,
  plainObjectCondition,
  prelude,
  stringLiteral,
  test,
  tooLarge,
  type Accept,
  type Generator,
} from './generate-validator.js'
import type { ArrayNode, JsonNode, ObjectNode, SchemaNode } from './schema-node.js'
import { pathPiece, Sink, type Check } from './validation-sink.js'
import type { Violation } from './violation.js'

/**
 * Where a locating walk stopped: the check of the node that failed (`check`) and the value it failed on (`value`),
 * and the path from the root down to that node, innermost segment first, with each segment's path piece.
 */
export interface Found {
  check: Check | undefined
  value: unknown
  /** How many of `segments` and `pieces` this walk wrote (the arrays are reused, never shortened). */
  depth: number
  readonly segments: JsonPathSegment[]
  readonly pieces: string[]
}

/** A locating walk: `true` when the value matches; otherwise `false`, with `found` telling where it failed. */
export type Locate = (value: unknown, found: Found) => boolean

/**
 * The first violation of a value, found by the locating walk: `undefined` when the value matches, `null` when the
 * node that failed found nothing when it was read again (a getter or proxy that answers differently: the caller
 * then walks the whole value with the closures). Never throws.
 */
export type FirstViolation = (value: unknown) => Violation | undefined | null

/** A schema's generated code: the accept-only check and the first-violation path. */
export interface GeneratedValidator {
  readonly accept: Accept
  readonly firstViolation: FirstViolation
}

// `L` records the node that failed here; `P` adds a segment as the walk unwinds. Both answer `false`.
const locatorPrelude =
  'const L=(F,c,v)=>{F.check=c;F.value=v;return false},P=(F,s,p)=>{F.segments[F.depth]=s;F.pieces[F.depth++]=p;return false};'

/** The items of an array without `items`: any lossless JSON (its closure check is the shared `json` check). */
const anyJson: JsonNode = { kind: 'json', annotations: {} }

interface Locating {
  readonly generator: Generator
  readonly names: Map<SchemaNode, string>
  readonly root: SchemaNode
  readonly rootCheck: Check
}

function checkOf(locating: Locating, node: SchemaNode): string {
  return constant(locating.generator, node === locating.root ? locating.rootCheck : compileNode(node))
}

/** An expression, true when `x` matches `node`; when it does not, the walk's state says where and it is false. */
function locateIn(locating: Locating, node: SchemaNode, x: string): string {
  if (node.kind === 'object' || node.kind === 'array') return `${locatorOf(locating, node)}(${x},F)`
  return `(${test(locating.generator, node, x)}||L(F,${checkOf(locating, node)},${x}))`
}

/** The name of the locating function of an object or array node, generating it the first time. */
function locatorOf(locating: Locating, node: ObjectNode | ArrayNode): string {
  const known = locating.names.get(node)
  if (known !== undefined) return known
  const name = `g${locating.names.size}`
  locating.names.set(node, name)
  const self = checkOf(locating, node)
  const body = node.kind === 'object' ? objectLocator(locating, node, self) : arrayLocator(locating, node, self)
  // A throw while reading this value is this node's to report (its children catch their own): forget any segment.
  const caught = `catch(error){F.depth=0;return L(F,${self},v)}`
  locating.generator.functions.push(`function ${name}(v,F){try{${body}}${caught}}`)
  return name
}

function objectLocator(locating: Locating, node: ObjectNode, self: string): string {
  let required = 0
  const cases = node.properties.map((property) => {
    const count = property.required ? 'r++;' : ''
    if (property.required) required++
    const piece = constant(locating.generator, pathPiece(property.name))
    return `case ${stringLiteral(property.name)}:if(!${locateIn(locating, property.node, 'x')})return P(F,key,${piece});${count}break;`
  })
  // An undeclared key, or a missing required one, is the object's own violation: its closure check finds it.
  const fallback = node.additionalProperties ? `default:if(!isJson(x))return L(F,${self},v);` : `default:return L(F,${self},v);`
  return (
    `if(${plainObjectCondition})return L(F,${self},v);let r=0;` +
    `for(const key in v){if(!Object.prototype.hasOwnProperty.call(v,key))continue;const x=v[key];` +
    `switch(key){${cases.join('')}${fallback}}}` +
    `return r===${required}||L(F,${self},v)`
  )
}

function arrayLocator(locating: Locating, node: ArrayNode, self: string): string {
  const unique = node.constraints?.uniqueItems === true
  const bounds = arrayBounds(node)
  const element = locateIn(locating, node.items ?? anyJson, 'x')
  return (
    `if(${plainArrayCondition})return L(F,${self},v);` +
    `const n=v.length;${bounds !== '' ? `if(${bounds})return L(F,${self},v);` : ''}` +
    `const p=v.__proto__===AP?AP:getPrototypeOf(v);${unique ? 'const e=[];' : ''}` +
    `for(let i=0;i<n;i++){const x=i in p&&!hop.call(v,i)?undefined:v[i];if(!${element})return P(F,i,"["+i+"]");${unique ? 'e.push(x);' : ''}}` +
    `return ${unique ? `dup(e)===undefined||L(F,${self},v)` : 'true'}`
  )
}

/**
 * Generates the accept-only check and the locating walk of `node` (whose closure check is `rootCheck`), or
 * `undefined` when the host forbids code generation or the schema has more than `MAX_GENERATED_NODES` distinct
 * nodes (the caller then uses the closures).
 */
export function generateValidator(node: SchemaNode, rootCheck: Check): GeneratedValidator | undefined {
  if (!codeGenerationAllowed()) return undefined
  const generator: Generator = { constants: [], functions: [], names: new Map() }
  const locating: Locating = { generator, names: new Map(), root: node, rootCheck }
  let accept: string
  let locate: string
  try {
    accept = node.kind === 'json' ? 'isJson' : functionOf(generator, node)
    if (node.kind === 'object' || node.kind === 'array') locate = locatorOf(locating, node)
    else {
      locate = 'g'
      generator.functions.push(`function g(v,F){return ${locateIn(locating, node, 'v')}}`)
    }
  } catch (error) {
    if (error === tooLarge) return undefined
    throw error
  }
  const source = `${prelude}${locatorPrelude}${generator.functions.join('\n')}\nreturn[${accept},${locate}]`
  const factory = new Function('k', 'h', source) as (constants: unknown[], host: typeof helpers) => [Accept, Locate]
  const [acceptFunction, locateFunction] = factory(generator.constants, helpers)
  return { accept: acceptFunction, firstViolation: firstViolationWith(locateFunction) }
}

function emptyFound(): Found {
  return { check: undefined, value: undefined, depth: 0, segments: [], pieces: [] }
}

/**
 * `firstViolation` over a locating walk. One {@link Found} is reused from call to call (a getter that validates
 * again while the walk runs gets one of its own), so a call allocates little more than what it returns.
 */
function firstViolationWith(locate: Locate): FirstViolation {
  let spare: Found | undefined = emptyFound()
  return (value) => {
    let found = spare
    if (found === undefined) found = emptyFound()
    else spare = undefined
    found.depth = 0
    let ok: boolean | null
    try {
      ok = locate(value, found)
    } catch {
      // Only through the engine's own limits (the walk catches what reading throws): the closures report it.
      ok = null
    }
    const result = ok === true ? undefined : ok === null ? null : recordAt(found)
    found.check = undefined
    found.value = undefined
    spare = found
    return result
  }
}

/** The first violation of the node the locating walk stopped at, with the path down to it; `null` when none. */
function recordAt(found: Found): Violation | null {
  const check = found.check
  if (check === undefined) return null
  const sink = new Sink(1, 1)
  try {
    if (check(found.value, sink)) return null
  } catch {
    return null
  }
  // Never `list[0]` of an empty list: that would read a polluted `Object.prototype[0]`.
  if (sink.list.length === 0) return null
  const pending = sink.list[0] as (typeof sink.list)[number]
  // The path above the node (its segments, innermost first), then the path inside it.
  const { segments, pieces, depth } = found
  let text = pending.text
  for (let index = 0; index < depth; index++) text = (pieces[index] as string) + text
  const path: JsonPathSegment[] = []
  for (let index = depth - 1; index >= 0; index--) path.push(segments[index] as JsonPathSegment)
  for (let index = pending.reversed.length - 1; index >= 0; index--) path.push(pending.reversed[index] as JsonPathSegment)
  return { path: text.charCodeAt(0) === 46 ? text.slice(1) : text, segments: path, keyword: pending.keyword, message: pending.message }
}
