import type { InferArgs, InferValue } from './infer-args.js'
import { JsonSchemaError } from './json-schema-error.js'
import { readOption } from './read-own.js'
import { readParameterSpec, readValueSpec, type ReadResult } from './read-schema.js'
import type { ObjectNode, SchemaNode } from './schema-node.js'
import type { SchemaProblem } from './schema-problem.js'
import type { ParameterSchemaSpec, ValueSchemaSpec } from './schema-spec.js'
import { defaultValidatorBackend, validatorFor, type GenerateWhen, type ValidatorBackendChoice } from './validator-backend.js'
import type { ValidateOptions, ValidationResult, Validator } from './validator.js'

/** Options of {@link compileParameters} and {@link compileValueSchema}. */
export interface CompileOptions {
  /**
   * `true` (the default): reuse the validator compiled earlier for the same spec object (cached by identity).
   * `false`: check and compile the spec afresh, and leave the cache alone.
   */
  readonly cache?: boolean
  /**
   * `'auto'` (the default, unless changed with `setDefaultValidatorBackend`): generated code (`new Function`)
   * wherever the host allows it, closures otherwise. `'closures'`: never generate code. Both give the same
   * verdicts, violations, paths and messages; `validator.backend` says which one answers.
   */
  readonly backend?: ValidatorBackendChoice
  /**
   * When the `'auto'` backend generates the schema's code: `'now'` (the default: the validator is at its fastest from
   * its first call, and compiling costs the generation, a few hundred microseconds for a nested schema) or
   * `'when-hot'` (closures answer the first 1,000 `is` calls, then the code is generated: compiling costs no
   * generation, and a schema that is rarely validated never pays for it). The verdicts and violations are the same.
   */
  readonly generate?: GenerateWhen
}

/** A checked schema and its validator. */
export interface Compiled<Node extends SchemaNode> {
  readonly node: Node
  readonly validator: Validator<unknown>
}

const parameterCache = new WeakMap<object, ObjectNode>()
const valueCache = new WeakMap<object, SchemaNode>()

/** How {@link compile} reads, checks and caches one kind of schema. */
export interface SchemaKind<Node extends SchemaNode> {
  /** Reads the spec into a node, or lists its problems. */
  readonly read: (spec: unknown) => ReadResult<Node>
  /** Checked nodes by spec identity (their validators are cached per node and backend). */
  readonly cache: WeakMap<object, Node>
  /** Turns the problems of an unsupported schema into the error to throw (default: {@link JsonSchemaError}). */
  readonly fail?: (problems: readonly SchemaProblem[]) => Error
}

const parameters: SchemaKind<ObjectNode> = { read: readParameterSpec, cache: parameterCache }
const values: SchemaKind<SchemaNode> = { read: readValueSpec, cache: valueCache }

/** Reads a backend option: `'auto'`, `'closures'`, or the default for anything else (never throws). */
function backendOf(options: unknown): ValidatorBackendChoice {
  const backend = readOption(options, 'backend')
  return backend === 'auto' || backend === 'closures' ? backend : defaultValidatorBackend()
}

/** Reads a `generate` option: `'when-hot'`, or `'now'` for anything else (never throws). */
function generateOf(options: unknown): GenerateWhen {
  return readOption(options, 'generate') === 'when-hot' ? 'when-hot' : 'now'
}

/** Reads and compiles a schema of `kind`, or returns what was compiled earlier for the same object. */
export function compile<Node extends SchemaNode>(
  spec: unknown,
  kind: SchemaKind<Node>,
  useCache: boolean,
  backend: ValidatorBackendChoice = defaultValidatorBackend(),
  when: GenerateWhen = 'now',
): Compiled<Node> {
  const { read, cache, fail = (problems) => new JsonSchemaError(problems) } = kind
  const cacheable = useCache && typeof spec === 'object' && spec !== null
  let node = cacheable ? cache.get(spec) : undefined
  if (node === undefined) {
    const result = read(spec)
    if (result.node === undefined) throw fail(result.problems)
    node = result.node
    if (cacheable) cache.set(spec, node)
  }
  return { node, validator: validatorFor(node, backend, when) }
}

/** The checked node of a parameter map (cached). Throws {@link JsonSchemaError}. */
export function parameterNode(spec: unknown): ObjectNode {
  return compile(spec, parameters, true).node
}

/** The checked node of a value spec (cached). Throws {@link JsonSchemaError}. */
export function valueNode(spec: unknown): SchemaNode {
  return compile(spec, values, true).node
}

/**
 * Checks a parameter map and compiles it into a {@link Validator} of `InferArgs<typeof spec>`. Compiled once
 * per spec object (a `WeakMap` keyed by identity; a spec is read once, so later changes to it are not seen).
 *
 * @throws {@link JsonSchemaError} listing every problem of the spec, with paths.
 */
export function compileParameters<const Spec extends ParameterSchemaSpec>(
  spec: Spec,
  options?: CompileOptions,
): Validator<InferArgs<Spec>> {
  return compile(spec, parameters, readOption(options, 'cache') !== false, backendOf(options), generateOf(options)).validator as Validator<InferArgs<Spec>>
}

/**
 * Checks a value spec and compiles it into a {@link Validator} of `InferValue<typeof spec>`, cached like
 * {@link compileParameters}.
 *
 * @throws {@link JsonSchemaError} listing every problem of the spec, with paths.
 */
export function compileValueSchema<const Spec extends ValueSchemaSpec>(
  spec: Spec,
  options?: CompileOptions,
): Validator<InferValue<Spec>> {
  return compile(spec, values, readOption(options, 'cache') !== false, backendOf(options), generateOf(options)).validator as Validator<InferValue<Spec>>
}

/**
 * Validates tool arguments against a parameter map: every violation with its path (`servers[1].host`), at most
 * `maxViolations` listed and the rest counted. Never throws for any `value`; throws {@link JsonSchemaError} when
 * the spec itself is not supported.
 */
export function validateArgs<const Spec extends ParameterSchemaSpec>(
  spec: Spec,
  value: unknown,
  options?: ValidateOptions,
): ValidationResult<InferArgs<Spec>> {
  return compileParameters(spec).validate(value, options)
}

/** Like {@link validateArgs}, for a value spec. */
export function validateValue<const Spec extends ValueSchemaSpec>(
  spec: Spec,
  value: unknown,
  options?: ValidateOptions,
): ValidationResult<InferValue<Spec>> {
  return compileValueSchema(spec).validate(value, options)
}
