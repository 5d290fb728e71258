// Which backend compiles a schema node into a validator, and the per-node cache of the validators built.
import { compileArguments, compileNode } from './compile-validator.js'
import { generateValidator } from './generate-first-violation.js'
import type { SchemaNode } from './schema-node.js'
import type { Check } from './validation-sink.js'
import { closureFirstViolation, createValidator, type Validator } from './validator.js'

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
    // With 'when-hot' nothing is compiled here: the closures, their messages and the code wait for the first use.
    const compile = () => (node.kind === 'object' && node.implicit ? compileArguments(node) : compileNode(node))
    const generate = choice === 'auto' ? (check: Check) => generateValidator(node, check, closureFirstViolation(check)) : undefined
    validator = createValidator(compile, generate, when === 'when-hot')
    cache.set(node, validator)
  } else if (when === 'now') (validator as { generateNow?: () => void }).generateNow?.()
  return validator
}
