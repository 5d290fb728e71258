// Which backend compiles a schema node into a validator, and the per-node cache of the validators built.
import { compileArguments, compileNode } from './compile-validator.js'
import { generateValidator } from './generate-first-violation.js'
import type { SchemaNode } from './schema-node.js'
import { closureFirstViolation, createValidator, type ValidateOptions, type ValidationResult, type Validator } from './validator.js'

/**
 * How validators are compiled. `'generated'`: one JavaScript function per schema (`new Function`), the fastest;
 * `'closures'`: a tree of closures, for hosts that forbid code generation.
 */
export type ValidatorBackend = 'generated' | 'closures'

/**
 * Which backend to use. `'auto'` (the default): generated code wherever the host allows `new Function` (detected
 * once, on first use) and the schema has at most `MAX_GENERATED_NODES` distinct nodes; closures otherwise.
 * `'closures'`: closures always. Both give the same verdicts, violations, paths and messages.
 */
export type ValidatorBackendChoice = 'auto' | 'closures'

let defaultChoice: ValidatorBackendChoice = 'auto'

/**
 * When the `'auto'` backend generates a schema's code: `'now'`, as the validator is compiled (the compile functions'
 * default: a compiled validator is the fastest from its first call), or `'when-hot'`, after
 * `GENERATE_AFTER_CALLS` (1,000) calls of `is`, answering with closures until then (what `defineTool` does: a
 * definition costs no code generation, and a tool that is called rarely never pays for it).
 */
export type GenerateWhen = 'now' | 'when-hot'

/**
 * Sets the backend of validators compiled from now on where no `backend` option is given (`compileParameters`,
 * `compileValueSchema`, `validateArgs`, `defineTool`, the structured-output subset). Returns the previous setting.
 * Validators compiled earlier keep theirs.
 *
 * @throws TypeError for anything but `'auto'` or `'closures'`.
 */
export function setDefaultValidatorBackend(choice: ValidatorBackendChoice): ValidatorBackendChoice {
  if (choice !== 'auto' && choice !== 'closures') {
    throw new TypeError(`the validator backend must be "auto" or "closures", got ${typeof choice === 'string' ? JSON.stringify(choice) : typeof choice}`)
  }
  const previous = defaultChoice
  defaultChoice = choice
  return previous
}

/** The default set by {@link setDefaultValidatorBackend}. */
export function defaultValidatorBackend(): ValidatorBackendChoice {
  return defaultChoice
}

const caches: Record<ValidatorBackendChoice, WeakMap<SchemaNode, Validator<unknown>>> = { auto: new WeakMap(), closures: new WeakMap() }

/**
 * The validator of a checked node, built once per node and backend choice. A parameter map's node (the implicit
 * top-level object) reports a value that is not an object as the arguments' shape.
 */
export function validatorFor(node: SchemaNode, choice: ValidatorBackendChoice = defaultChoice, when: GenerateWhen = 'now'): Validator<unknown> {
  const cache = caches[choice]
  let validator = cache.get(node)
  if (validator === undefined) {
    const compile = (hot: boolean): Validator<unknown> => {
      const check = node.kind === 'object' && node.implicit ? compileArguments(node) : compileNode(node)
      const generate = choice === 'auto' ? () => generateValidator(node, check, closureFirstViolation(check)) : undefined
      return createValidator(check, generate, hot)
    }
    validator = when === 'when-hot' ? new DeferredValidator(() => compile(true)) : compile(false)
    cache.set(node, validator)
  } else if (when === 'now') (validator as { generateNow?: () => void }).generateNow?.()
  return validator
}

/**
 * A validator compiled on its first use: what `'when-hot'` hands out, so that defining a tool compiles nothing (the
 * closures, their messages and the generated code all wait for the first validation). Delegates every method.
 */
class DeferredValidator implements Validator<unknown> {
  #make: (() => Validator<unknown>) | undefined
  #inner: Validator<unknown> | undefined

  constructor(make: () => Validator<unknown>) {
    this.#make = make
  }

  #compiled(): Validator<unknown> {
    if (this.#inner === undefined) {
      this.#inner = (this.#make as () => Validator<unknown>)()
      this.#make = undefined
    }
    return this.#inner
  }

  get backend(): ValidatorBackend {
    return this.#inner?.backend ?? 'closures'
  }

  readonly is = (value: unknown): value is unknown => this.#compiled().is(value)

  readonly firstViolation = (value: unknown) => this.#compiled().firstViolation(value)

  validate(value: unknown, options?: ValidateOptions): ValidationResult<unknown> {
    return this.#compiled().validate(value, options)
  }

  /** Compiles now and generates the code now (a compile function asked for the same node without `'when-hot'`). */
  generateNow(): void {
    ;(this.#compiled() as { generateNow?: () => void }).generateNow?.()
  }
}
