import {
  snapshotJson,
  type ContentBlock,
  type JsonPathSegment,
  type ToolAnnotations,
  type ToolExecutionPolicy,
  type ToolArgumentsCheck,
  type ToolCallView,
  type ToolDefinition,
  type ToolExecuteObjectReturn,
  type ToolExecuteReturn,
  type ToolExecution,
  type ToolOutputSchema,
  type ToolResult,
  type ToolResultView,
} from '@dsh/tools-core'
import { nonJsonMessage } from './value-rules.js'
import { describeValue, errorText } from './describe-value.js'
import { JsonSchemaError } from './json-schema-error.js'
import { readOwnArray, readOwnObject } from './read-own.js'
import { readParameterSpec, readValueSpec } from './read-schema.js'
import { schemaProblem, type SchemaProblem } from './schema-problem.js'
import type { ParametersJsonSchema } from './schema-spec-to-json-schema.js'
import type { ValueSchemaSpec } from './schema-spec.js'
import type { StandardSchemaWithJsonSchema } from './standard-schema.js'
import type { InferValue } from './infer-args.js'
import { hasStandardProps, readStandardSchema } from './standard-schema-check.js'
import { MAX_TIMEOUT_MS, readExecutionPolicy, withRunInBackground } from './execution-policy.js'
import { ToolArgsError } from './tool-args-error.js'
import { ToolDefinitionError } from './tool-definition-error.js'
import { ToolOutputError } from './tool-output-error.js'
import {
  dslSchemaCheck,
  isSnapshot,
  type ToolArgsOf,
  type ToolOutputReturnOf,
  type ToolOutputSchemaSpec,
  type ToolOutputValueOf,
  type ToolParametersSpec,
  type ToolSchemaCheck,
} from './tool-schema-check.js'
import type { Violation } from './violation.js'
import { observedThenable } from './thenable.js'

/** The names a model may call: `^[A-Za-z_][A-Za-z0-9_-]{0,63}$` (what the major providers accept). */
export const TOOL_NAME_PATTERN: RegExp = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/

export { MAX_TIMEOUT_MS } from './execution-policy.js'

/** A value or a promise of it. */
export type MaybePromise<T> = T | Promise<T>

/**
 * What a tool body without `output` returns: content blocks, a string (one text block), or `{ content, meta }`
 * (`meta`: the replayable presentation payload, lossless JSON). A `structuredContent` comes only from a declared
 * `output`, where it is validated; a body without `output` that returns one gets `INVALID_TOOL_OUTPUT`.
 */
export type ToolContentReturn = ContentBlock[] | string | { content: ContentBlock[]; meta?: unknown }

/**
 * A completed call as a typed `presentResult` sees it, with `output`: the replayable projections only. `meta` is
 * what `output.presentationMeta` returned (absent for failures, and always absent without `presentationMeta`);
 * the canonical value (`structuredContent`) is never handed over, because a replayed session log does not hold it.
 */
export interface TypedToolResult<Meta> {
  /** The model-facing content. */
  content: ContentBlock[]
  /** True when the call failed. */
  isError: boolean
  /**
   * The presentation payload `presentationMeta` returned. A replayed log may hold one written by an older version
   * of the tool: check what you rely on.
   */
  meta?: Meta
}

/** The fields every {@link defineTool} spec has. */
export interface ToolSpecBase<Spec extends ToolParametersSpec> {
  /** The name the model calls, matching {@link TOOL_NAME_PATTERN}. */
  name: string
  /** What the tool does, written for the model. */
  description: string
  /**
   * The parameter map (`execute` receives `InferArgs<typeof parameters>`), or a Standard Schema with JSON Schema
   * describing an object, such as a zod 4 `z.object(…)` (`execute` receives its output type).
   */
  parameters: Spec
  /** Cooperative timeout budget in ms: a positive integer ≤ {@link MAX_TIMEOUT_MS}. Never sent to the model. */
  timeoutMs?: number
  /** True when calls of this tool may run in parallel with other such calls. */
  concurrencySafe?: boolean
  /**
   * A human-readable display name for UIs and MCP clients (`Read a file`): a non-empty string. Never sent to the
   * model, which reads `name` and `description`; an MCP server lists it as the tool's `title`.
   */
  title?: string
  /**
   * The tool's MCP behaviour hints, declared by you and listed as they are by an MCP server serving the tool:
   * `readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint` (booleans) and `title` (MCP's annotation
   * title; prefer the top-level `title`). Clients act on them (one may skip the confirmation of a read-only tool), so
   * declare only what holds. Never sent to the model. `readOnlyHint: true` also lets the registry run the tool's calls
   * in parallel, unless `concurrencySafe: false`.
   */
  annotations?: ToolAnnotations
  /**
   * Whether and how calls may run as tasks, read by the task layer (`@dsh/tool-tasks`): `background` (`'forbidden'`,
   * the default; `'optional'`, which adds a `run_in_background` boolean parameter the model may set, checked here
   * and left out of the arguments the body gets; `'required'`), `autoBackgroundAfterMs` (the foreground budget)
   * and `maxRuntimeMs`. Never sent to the model.
   */
  execution?: ToolExecutionPolicy
  /** How to show the pending call. Only called with arguments that validate; otherwise the wrapper returns `undefined`. */
  presentCall?(args: ToolArgsOf<Spec>): ToolCallView | undefined
}

/** What the body of a tool returns: the output value when `Output` is a schema, content otherwise. */
export type ToolBodyReturn<Output> = [Output] extends [ValueSchemaSpec]
  ? InferValue<Output>
  : [Output] extends [StandardSchemaWithJsonSchema]
    ? ToolOutputReturnOf<Output>
    : ToolContentReturn

/** What `invoke` of a defined tool resolves to: the output value, or the content as `{ content, meta? }`. */
export type ToolInvokeResult<Output> = [Output] extends [ToolOutputSchemaSpec] ? ToolOutputValueOf<Output> : ToolExecuteObjectReturn

/**
 * The `output` of a {@link ToolSpec}: the schema of the body's value (the canonical value), how it becomes content,
 * and optionally the presentation payload derived from it. The value travels as the result's `structuredContent`
 * (execution time only, never persisted); `content` and `meta` are the replayable projections.
 */
export interface ToolOutputSpec<Spec extends ToolParametersSpec, Output, Meta = undefined> {
  /** The schema of the value the body returns: a DSL value schema or a Standard Schema with JSON Schema (zod 4, …). */
  schema: Output
  /** Turns the validated value into the model-facing content (a string is one text block). Pure. */
  render(args: ToolArgsOf<Spec>, value: ToolOutputValueOf<Output>): ContentBlock[] | string
  /**
   * The replayable presentation payload (the result's `meta`, typed for `presentResult`): what a UI needs to show
   * the completed call again from a session log. Must return lossless JSON (otherwise `INVALID_TOOL_OUTPUT`).
   * Pure. Omit it and the result has no `meta`.
   */
  presentationMeta?(args: ToolArgsOf<Spec>, value: ToolOutputValueOf<Output>): Meta
}

/**
 * What {@link defineTool} takes. With `output: { schema, render }` the body returns a JSON value matching
 * `schema`; without it, the body returns content blocks, a string, or `{ content, meta }`.
 */
export interface ToolSpec<Spec extends ToolParametersSpec, Output extends ToolOutputSchemaSpec | undefined = undefined, Meta = undefined>
  extends ToolSpecBase<Spec> {
  /** The value's schema, its rendering and its presentation payload; omit it for a body that returns content. */
  output?: ToolOutputSpec<Spec, Output, Meta>
  /** The body: runs only with arguments that match `parameters`. */
  execute(args: ToolArgsOf<Spec>, exec: ToolExecution): MaybePromise<ToolBodyReturn<Output>>
  /**
   * How to show the completed call, from the replayable projections: with `output`, `result.meta` is what
   * `output.presentationMeta` returned. Only called with arguments that validate; otherwise the wrapper returns
   * `undefined`.
   */
  presentResult?(
    args: ToolArgsOf<Spec>,
    result: [Output] extends [ToolOutputSchemaSpec] ? TypedToolResult<Meta> : ToolResult,
  ): ToolResultView | undefined
}

/**
 * What {@link defineTool} returns: a tools-core `ToolDefinition` (register it with `ctx.tools.register`), plus
 * `invoke` for programmatic callers.
 */
export interface DefinedTool<Args, Result> extends ToolDefinition {
  /**
   * The registry's validation hook: checks `args` against the parameter schema without running anything, so the
   * registry rejects a call whose arguments do not validate (`INVALID_ARGS`, with this message) before any policy
   * listener, guard or person sees it. Never throws.
   */
  validateArguments(args: unknown): ToolArgumentsCheck
  /**
   * Runs the tool outside the registry: validates `args` (throws {@link ToolArgsError}), runs the body, checks
   * its output (throws {@link ToolOutputError}) and returns, with `output`, the validated value (a detached,
   * deep-frozen copy) or, without, the content as `{ content, meta? }`.
   */
  invoke(args: Args, exec: ToolExecution): Promise<Result>
}

const specKeys: ReadonlySet<string> = new Set([
  'name',
  'description',
  'parameters',
  'output',
  'execute',
  'timeoutMs',
  'concurrencySafe',
  'title',
  'annotations',
  'presentCall',
  'presentResult',
  'execution',
])
const hintKeys: readonly string[] = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']
const annotationKeys: ReadonlySet<string> = new Set(['title', ...hintKeys])
const VALID: ToolArgumentsCheck = Object.freeze({ ok: true })
const outputKeys: ReadonlySet<string> = new Set(['schema', 'render', 'presentationMeta'])
const contentTypes: ReadonlySet<unknown> = new Set(['text', 'image', 'audio', 'resource_link', 'resource'])

type AnyFunction = (this: unknown, ...args: unknown[]) => unknown

/** A definition's fields, each read once (own properties only; see `readOwnObject`). */
type Fields = ReadonlyMap<string, unknown>

function rootViolation(message: string): Violation {
  return { path: '', segments: [], keyword: 'type', message }
}

/** Content blocks from a body or `render` return, or why it is not content. Never throws. */
/** Why a `render` or `presentationMeta` that returned a promise is refused. */
const synchronousOnly = 'returned a promise; it must answer synchronously (do asynchronous work in execute, and derive from its value)'

function contentOf(value: unknown, forms = ' or a string'): ContentBlock[] | Violation {
  if (typeof value === 'string') return [{ type: 'text', text: value }]
  const list = readOwnArray(value)
  if (list.items === undefined) {
    return rootViolation(list.got === undefined ? `reading the content threw: ${list.threw}` : `expected content blocks${forms}, got ${list.got}`)
  }
  for (let index = 0; index < list.items.length; index++) {
    const block = readOwnObject(list.items[index])
    if (block.entries === undefined || !contentTypes.has(block.entries.get('type'))) {
      const message = block.threw === undefined ? `expected a content block, got ${describeValue(list.items[index])}` : `reading the content block threw: ${block.threw}`
      return { path: `[${index}]`, segments: [index], keyword: 'type', message }
    }
  }
  return value as ContentBlock[]
}

/** A body's thenable, adopted into a native promise: what `run` returns instead of the value when there is one to wait for. */
class Pending {
  constructor(readonly promise: Promise<unknown>) {}
}

/** `Array.isArray`, false where it throws (a revoked proxy, which `readOwnObject` then reports as unreadable). */
function isArrayQuietly(value: object): boolean {
  try {
    return Array.isArray(value)
  } catch {
    return false
  }
}

/**
 * The own `content` and `meta` of a body's `{ content, meta }` return, or `undefined` for any other return (an
 * array, a string, a value that cannot be read, which `contentOf` then reports). A `meta` inherited from a
 * polluted prototype is not the body's.
 */
function contentParts(value: unknown): { readonly content: unknown; readonly meta: unknown; readonly value: unknown } | undefined {
  // A string or an array is content itself: asked first, so the common answer describes nothing it will not report.
  if (typeof value !== 'object' || value === null || isArrayQuietly(value)) return undefined
  const own = readOwnObject(value)
  if (own.entries === undefined) return undefined
  return { content: own.entries.get('content'), meta: own.entries.get('meta'), value: own.entries.get('structuredContent') }
}

/** Checks one definition field, recording a problem when it is wrong. */
function checkFields(spec: Fields, problems: SchemaProblem[]): void {
  const report = (segments: JsonPathSegment[], message: string) => problems.push(schemaProblem(segments, message))
  for (const key of spec.keys()) {
    if (!specKeys.has(key)) report([key], `unknown field ${JSON.stringify(key)} (allowed: ${[...specKeys].join(', ')})`)
  }
  const name = spec.get('name')
  const description = spec.get('description')
  const timeoutMs = spec.get('timeoutMs')
  const concurrencySafe = spec.get('concurrencySafe')
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    report(['name'], `must match ${String(TOOL_NAME_PATTERN)}, got ${describeValue(name)}`)
  }
  if (typeof description !== 'string' || description.trim() === '') {
    report(['description'], `must be a non-empty string, got ${describeValue(description)}`)
  }
  const execute = spec.get('execute')
  if (typeof execute !== 'function') report(['execute'], `must be a function, got ${describeValue(execute)}`)
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && (timeoutMs as number) > 0 && (timeoutMs as number) <= MAX_TIMEOUT_MS)) {
    report(['timeoutMs'], `must be a positive integer of milliseconds ≤ ${MAX_TIMEOUT_MS}, got ${describeValue(timeoutMs)}`)
  }
  if (concurrencySafe !== undefined && typeof concurrencySafe !== 'boolean') {
    report(['concurrencySafe'], `must be a boolean, got ${describeValue(concurrencySafe)}`)
  }
  for (const key of ['presentCall', 'presentResult'] as const) {
    const value = spec.get(key)
    if (value !== undefined && typeof value !== 'function') report([key], `must be a function, got ${describeValue(value)}`)
  }
  const title = spec.get('title')
  if (title !== undefined && (typeof title !== 'string' || title.trim() === '')) {
    report(['title'], `must be a non-empty string, got ${describeValue(title)}`)
  }
}

/**
 * The declared `annotations` as a detached frozen copy of their own fields (`undefined` when absent), reporting every
 * field that is wrong: an unknown key, a hint that is not a boolean, a title that is not a non-empty string.
 */
function readAnnotations(value: unknown, report: (segments: JsonPathSegment[], message: string) => void): ToolAnnotations | undefined {
  if (value === undefined) return undefined
  const own = readOwnObject(value)
  if (own.entries === undefined) {
    report(['annotations'], own.got === undefined ? `reading it threw: ${own.threw}` : `must be an object of MCP hints, got ${own.got}`)
    return undefined
  }
  const copy: Record<string, string | boolean> = {}
  for (const [key, field] of own.entries) {
    if (!annotationKeys.has(key)) {
      report(['annotations', key], `unknown field ${JSON.stringify(key)} (allowed: ${[...annotationKeys].join(', ')})`)
    } else if (key === 'title') {
      if (typeof field === 'string' && field.trim() !== '') copy[key] = field
      else report(['annotations', key], `must be a non-empty string, got ${describeValue(field)}`)
    } else if (typeof field === 'boolean') copy[key] = field
    else if (field !== undefined) report(['annotations', key], `must be a boolean, got ${describeValue(field)}`)
  }
  return Object.freeze(copy) as ToolAnnotations
}

interface OutputParts {
  readonly schema: ToolSchemaCheck
  readonly render: AnyFunction
  readonly presentationMeta: AnyFunction | undefined
  readonly holder: unknown
}

function checkOutput(output: unknown, problems: SchemaProblem[], schemaProblems: SchemaProblem[]): OutputParts | undefined {
  if (output === undefined) return undefined
  const own = readOwnObject(output)
  if (own.entries === undefined) {
    const message = own.got === undefined ? `reading it threw: ${own.threw}` : `must be { schema, render }, got ${own.got}`
    problems.push(schemaProblem(['output'], message))
    return undefined
  }
  for (const key of own.entries.keys()) {
    if (!outputKeys.has(key)) {
      problems.push(schemaProblem(['output', key], `unknown field ${JSON.stringify(key)} (allowed: ${[...outputKeys].join(', ')})`))
    }
  }
  const render = own.entries.get('render')
  if (typeof render !== 'function') problems.push(schemaProblem(['output', 'render'], `must be a function, got ${describeValue(render)}`))
  const presentationMeta = own.entries.get('presentationMeta')
  if (presentationMeta !== undefined && typeof presentationMeta !== 'function') {
    problems.push(schemaProblem(['output', 'presentationMeta'], `must be a function, got ${describeValue(presentationMeta)}`))
  }
  const schema = readToolSchema(own.entries.get('schema'), 'output', problems, schemaProblems)
  if (schema === undefined || typeof render !== 'function') return undefined
  return { schema, render: render as AnyFunction, presentationMeta: presentationMeta as AnyFunction | undefined, holder: output }
}

/**
 * Reads `parameters` or `output.schema`: a Standard Schema (its problems are definition problems: the schema
 * itself is the library's) or a DSL spec (its problems are schema problems, with paths inside it).
 */
function readToolSchema(
  value: unknown,
  role: 'parameters' | 'output',
  problems: SchemaProblem[],
  schemaProblems: SchemaProblem[],
): ToolSchemaCheck | undefined {
  const at = role === 'parameters' ? ['parameters'] : ['output', 'schema']
  if (hasStandardProps(value)) return readStandardSchema(value, role, at, problems)
  const read = role === 'parameters' ? readParameterSpec(value) : readValueSpec(value)
  for (const problem of read.problems) schemaProblems.push(schemaProblem([...at, ...problem.segments], problem.message))
  return read.node === undefined ? undefined : dslSchemaCheck(read.node)
}

/**
 * Defines a tool with a typed schema: checks the definition (name, description, `timeoutMs`, `concurrencySafe`,
 * `title`, `annotations`, the parameter map and the output schema, reporting every problem at once), converts
 * `parameters` to JSON Schema, and returns a `ToolDefinition` whose `execute` validates the arguments before the
 * body runs (a mismatch throws {@link ToolArgsError}, which the registry turns into an `isError` result the model can
 * act on). `title` and `annotations` (a frozen copy) are carried on the definition for UIs and MCP clients, never in
 * the model-facing schema.
 *
 * The definition carries the registry's validation hook, `validateArguments`: the registry checks a call's
 * arguments with it before any `tools/pre-execute` listener, guard or approval sees the call.
 *
 * With `output: { schema, render, presentationMeta? }` the body returns a JSON value, the canonical value; it must
 * be lossless JSON and match the schema (otherwise {@link ToolOutputError}, code `INVALID_TOOL_OUTPUT`). The
 * result's `structuredContent` is the validated value (a detached deep-frozen copy) for programmatic callers of
 * `ctx.tools.execute` and MCP clients, not for session logs; `render(args, value)` turns it into the content and
 * `presentationMeta(args, value)`, when given, into the result's `meta` (lossless JSON), the payload
 * `presentResult` reads on replay. `invoke` returns the value directly. When `output.schema` is an object schema,
 * the definition also carries it as `outputSchema` (its JSON Schema, deep-frozen), which the registry hands out
 * through `ctx.tools.outputSchema(name)` and an MCP server lists; for an output of another shape (a scalar, an
 * array, `json`, a `oneOf`) `outputSchema` is absent, because MCP allows only an object schema there.
 *
 * Without `output` the body returns content blocks, a string (one text block), or `{ content, meta }`.
 *
 * `presentCall` and `presentResult` are wrapped: with arguments that do not validate (replayed logs can hold
 * anything) they return `undefined` instead of running.
 *
 * `parameters` and `output.schema` may also be a Standard Schema that offers JSON Schema (Standard JSON Schema:
 * zod 4, and other libraries that implement it); the library stays an optional peer. Its input JSON Schema is
 * converted once, here, and sent to the model (for `parameters` it must describe an object); a schema that cannot
 * be converted (transforms, `z.custom`, dates, …) is a {@link ToolDefinitionError}. Calls are validated with
 * `~standard.validate` on a detached deep-frozen snapshot of the arguments; the body, `render` and the presenters
 * get the schema's output (defaults applied, unknown keys stripped), snapshotted and frozen the same way. Issues
 * become `INVALID_ARGS` violations (keyword `schema`) with our paths. Validation must be synchronous: a schema
 * whose `validate` returns a promise (an async refinement) fails every call with a violation that says so.
 *
 * @throws {@link JsonSchemaError} when only the schemas have problems (paths start at `parameters` or
 *   `output.schema`); {@link ToolDefinitionError} when other fields do (listing the schema problems too).
 */
// One signature, not an overload per kind of parameters: with overloads, a failed first candidate fixes the types
// of the spec's arrow functions (literals widen), and type errors would no longer land on the wrong property.
export function defineTool<
  const Spec extends ToolParametersSpec,
  const Output extends ToolOutputSchemaSpec | undefined = undefined,
  Meta = undefined,
>(spec: ToolSpec<Spec, Output, Meta>): DefinedTool<ToolArgsOf<Spec>, ToolInvokeResult<Output>>
export function defineTool(spec: ToolSpec<ToolParametersSpec, ToolOutputSchemaSpec | undefined, unknown>): DefinedTool<unknown, unknown> {
  const own = readOwnObject(spec)
  if (own.entries === undefined) {
    const message = own.got === undefined ? `reading the tool spec threw: ${own.threw}` : `expected a tool spec object, got ${own.got}`
    throw new ToolDefinitionError(undefined, [schemaProblem([], message)])
  }
  const fields = own.entries
  const problems: SchemaProblem[] = []
  const schemaProblems: SchemaProblem[] = []
  checkFields(fields, problems)
  const report = (segments: JsonPathSegment[], message: string): number => problems.push(schemaProblem(segments, message))
  const annotations = readAnnotations(fields.get('annotations'), report)
  const execution = readExecutionPolicy(fields.get('execution'), report)
  let parameters = readToolSchema(fields.get('parameters'), 'parameters', problems, schemaProblems)
  if (parameters !== undefined && execution?.background === 'optional') parameters = withRunInBackground(parameters, report)
  const output = checkOutput(fields.get('output'), problems, schemaProblems)
  const name = fields.get('name')
  if (problems.length > 0) throw new ToolDefinitionError(typeof name === 'string' ? name : undefined, [...problems, ...schemaProblems])
  if (schemaProblems.length > 0 || parameters === undefined) throw new JsonSchemaError(schemaProblems)
  return buildTool(spec, fields, name as string, parameters, output, annotations, execution)
}

function buildTool(
  spec: unknown,
  fields: Fields,
  name: string,
  parameters: ToolSchemaCheck,
  output: OutputParts | undefined,
  annotations: ToolAnnotations | undefined,
  execution: ToolExecutionPolicy | undefined,
): DefinedTool<unknown, unknown> {
  const body = fields.get('execute') as AnyFunction
  const presentCall = fields.get('presentCall') as AnyFunction | undefined
  const presentResult = fields.get('presentResult') as AnyFunction | undefined
  const timeoutMs = fields.get('timeoutMs')
  const concurrencySafe = fields.get('concurrencySafe')
  const title = fields.get('title')

  /**
   * The last snapshot `validateArguments` accepted, and what it parsed to: the registry validates a call's arguments
   * with the hook and then hands the same frozen snapshot to `execute`, which takes the parse from here instead of
   * validating again (once per call). Taken by the first `execute` that matches, so it holds no call's arguments
   * after the call ran.
   */
  let accepted: unknown
  let acceptedArgs: unknown

  /** The arguments the body gets (a Standard Schema's output), or the error that says why there are none. */
  function parseArgs(args: unknown): { readonly args: unknown; readonly error?: undefined } | { readonly error: ToolArgsError } {
    const result = parameters.check(args)
    return result.ok ? { args: result.value } : { error: new ToolArgsError({ toolName: name, violations: result.violations, omitted: result.omitted }) }
  }

  function checkArgs(args: unknown): unknown {
    if (args === accepted && accepted !== undefined) {
      accepted = undefined
      const parsed = acceptedArgs
      acceptedArgs = undefined
      return parsed
    }
    const parsed = parseArgs(args)
    if (parsed.error !== undefined) throw parsed.error
    return parsed.args
  }

  /** The arguments a presenter gets, or `undefined` when they do not validate (or cannot be read). */
  function presentable(args: unknown): { readonly args: unknown } | undefined {
    try {
      const result = parameters.check(args)
      return result.ok ? { args: result.value } : undefined
    } catch {
      return undefined
    }
  }

  function validateArguments(args: unknown): ToolArgumentsCheck {
    let parsed: ReturnType<typeof parseArgs>
    try {
      parsed = parseArgs(args)
    } catch (thrown) {
      // A value the validator cannot even read (a revoked proxy): not arguments that match.
      return { ok: false, message: `Invalid arguments for tool "${name}": they cannot be read (${errorText(thrown)}).` }
    }
    if (parsed.error !== undefined) return { ok: false, message: parsed.error.message }
    // A frozen snapshot cannot change before `execute` gets it: its parse is kept for that call.
    if (isSnapshot(args)) {
      accepted = args
      acceptedArgs = parsed.args
    }
    return VALID
  }

  /**
   * Runs the body and waits for its value. What `await` would do, except that a returned value's `then` is read
   * once and a throw while reading it (a revoked proxy) is the body's bad output, not a raw `TypeError`.
   */
  /**
   * Calls the body: its value, or a {@link Pending} when it returned a thenable. Not `async`, so a synchronous body
   * costs its callers no promise hop (each awaits only a {@link Pending}).
   */
  function run(args: unknown, exec: ToolExecution): unknown {
    const returned = body.call(spec, args, exec)
    if ((typeof returned !== 'object' || returned === null) && typeof returned !== 'function') return returned
    let then: unknown
    try {
      then = (returned as { then?: unknown }).then
    } catch (error) {
      throw invalidOutput([{ path: '', segments: [], keyword: 'unreadable', message: `reading the returned value threw: ${errorText(error)}` }])
    }
    if (typeof then !== 'function') return returned
    return new Pending(
      new Promise((resolve, reject) => {
        ;(then as (onFulfilled: (value: unknown) => void, onRejected: (reason: unknown) => void) => unknown).call(returned, resolve, reject)
      }),
    )
  }

  function invalidOutput(violations: readonly Violation[], omitted = 0): ToolOutputError {
    return new ToolOutputError({ toolName: name, violations, omitted })
  }

  /** Runs the body with the checked arguments; returns them and the checked output value. */
  async function runValue(args: unknown, exec: ToolExecution): Promise<{ readonly args: unknown; readonly value: unknown }> {
    const checked = checkArgs(args)
    const ran = run(checked, exec)
    const value = ran instanceof Pending ? await ran.promise : ran
    const snapshot = snapshotJson(value)
    if (!snapshot.ok) {
      const { path, segments } = snapshot.error
      throw invalidOutput([{ path, segments, keyword: 'json', message: nonJsonMessage(snapshot.error) }])
    }
    const result = (output as OutputParts).schema.check(snapshot.value)
    if (!result.ok) throw invalidOutput(result.violations, result.omitted)
    return { args: checked, value: result.value }
  }

  async function invokeValue(args: unknown, exec: ToolExecution): Promise<unknown> {
    return (await runValue(args, exec)).value
  }

  /** The presentation payload `presentationMeta` derives from the value, as a detached frozen JSON snapshot. */
  function presentationOf(parts: OutputParts, args: unknown, value: unknown): { readonly meta?: unknown } {
    if (parts.presentationMeta === undefined) return {}
    const meta = parts.presentationMeta.call(parts.holder, args, value)
    if (meta === undefined) return {}
    if (observedThenable(meta)) throw invalidOutput([{ path: '', segments: [], keyword: 'type', message: `presentationMeta: ${synchronousOnly}` }])
    const snapshot = snapshotJson(meta)
    if (!snapshot.ok) {
      const { path, segments } = snapshot.error
      throw invalidOutput([{ path, segments, keyword: 'json', message: `presentationMeta: ${nonJsonMessage(snapshot.error)}` }])
    }
    return { meta: snapshot.value }
  }

  async function invokeContent(args: unknown, exec: ToolExecution): Promise<ToolExecuteObjectReturn> {
    const ran = run(checkArgs(args), exec)
    return contentResult(ran instanceof Pending ? await ran.promise : ran)
  }

  /** `execute` of a tool without `output`: the content blocks alone unless the body gave `meta` too. */
  async function executeContent(args: unknown, exec: ToolExecution): Promise<ToolExecuteReturn> {
    const ran = run(checkArgs(args), exec)
    const result = contentResult(ran instanceof Pending ? await ran.promise : ran)
    return 'meta' in result ? result : result.content
  }

  /** `execute` of a tool with `output`: its rendered content, presentation `meta` and the checked value. */
  async function executeValue(args: unknown, exec: ToolExecution): Promise<ToolExecuteReturn> {
    const parts = output as OutputParts
    const { args: checked, value } = await runValue(args, exec)
    const rendered: unknown = parts.render.call(parts.holder, checked, value)
    if (observedThenable(rendered)) throw invalidOutput([{ path: '', segments: [], keyword: 'type', message: `render: ${synchronousOnly}` }])
    const content = contentOf(rendered)
    if (!Array.isArray(content)) throw invalidOutput([{ ...content, message: `render: ${content.message}` }])
    return { content, ...presentationOf(parts, checked, value), structuredContent: value }
  }

  /** What a body without `output` returned, as content (and `meta`); throws `ToolOutputError` when it is neither. */
  function contentResult(returned: unknown): ToolExecuteObjectReturn {
    const parts = contentParts(returned)
    if (parts !== undefined) {
      if (parts.value !== undefined) {
        const message = 'structuredContent comes from a declared output: declare output: { schema, render } and return the value itself'
        throw invalidOutput([{ path: 'structuredContent', segments: ['structuredContent'], keyword: 'type', message }])
      }
      const content = contentOf(parts.content)
      if (!Array.isArray(content)) {
        throw invalidOutput([{ ...content, path: `content${content.path}`, segments: ['content', ...content.segments] }])
      }
      return parts.meta !== undefined ? { content, meta: parts.meta } : { content }
    }
    const content = contentOf(returned, ', a string or { content, meta }')
    if (!Array.isArray(content)) throw invalidOutput([content])
    return { content }
  }

  const definition: DefinedTool<unknown, unknown> = {
    name,
    description: fields.get('description') as string,
    parameters: parameters.jsonSchema as ParametersJsonSchema,
    ...(timeoutMs !== undefined ? { timeoutMs: timeoutMs as number } : {}),
    ...(concurrencySafe !== undefined ? { concurrencySafe: concurrencySafe as boolean } : {}),
    ...(title !== undefined ? { title: title as string } : {}),
    ...(annotations !== undefined ? { annotations } : {}),
    ...(execution !== undefined ? { execution } : {}),
    // MCP allows only an object as `outputSchema` (and as `structuredContent`): any other output shape has none.
    ...(output !== undefined && output.schema.jsonSchema['type'] === 'object' ? { outputSchema: output.schema.jsonSchema as ToolOutputSchema } : {}),
    validateArguments,
    invoke: output === undefined ? invokeContent : invokeValue,
    execute: output === undefined ? executeContent : executeValue,
    ...(presentCall === undefined
      ? {}
      : {
          presentCall(args: unknown): ToolCallView | undefined {
            const shown = presentable(args)
            return shown === undefined ? undefined : (presentCall.call(spec, shown.args) as ToolCallView | undefined)
          },
        }),
    ...(presentResult === undefined
      ? {}
      : {
          presentResult(args: unknown, result: ToolResult): ToolResultView | undefined {
            const checked = presentable(args)
            if (checked === undefined) return undefined
            // The replayable projections only, as own fields (a meta inherited from a polluted prototype is not the
            // tool's); never `structuredContent`, which a replayed log does not hold, so a presenter cannot come to
            // depend on it. With `output` but no `presentationMeta` there is no meta to show.
            const hasMeta = Object.prototype.hasOwnProperty.call(result, 'meta') && (output === undefined || output.presentationMeta !== undefined)
            const shown: ToolResult = hasMeta
              ? { content: result.content, isError: result.isError, meta: result.meta }
              : { content: result.content, isError: result.isError }
            return presentResult.call(spec, checked.args, shown) as ToolResultView | undefined
          },
        }),
  }
  return Object.freeze(definition)
}
