import { Sink, type Check } from './validation-sink.js'
import { changedWhileReading } from './value-rules.js'
import { errorText } from './describe-value.js'
import { readOption } from './read-own.js'
import type { ValidatorBackend } from './validator-backend.js'
import type { FirstViolation, GeneratedValidator } from './generate-first-violation.js'
import { firstOf, type Violation } from './violation.js'

/** How many violations `validate` lists by default; the rest are counted in `omitted`. */
export const DEFAULT_MAX_VIOLATIONS = 20

/** Options of {@link Validator.validate}. */
export interface ValidateOptions {
  /** How many violations to list (default {@link DEFAULT_MAX_VIOLATIONS}); the rest are only counted. */
  readonly maxViolations?: number
}

/** The outcome of {@link Validator.validate}. */
export type ValidationResult<T> =
  | {
      /** The value matches. */
      readonly ok: true
      /** The same value, typed. */
      readonly value: T
    }
  | {
      /** The value does not match. */
      readonly ok: false
      /** The violations, in the order the value was read, at most `maxViolations` of them. */
      readonly violations: readonly Violation[]
      /** How many more violations there were. */
      readonly omitted: number
    }

/**
 * A compiled schema. Every method is total: whatever the input (throwing getters, proxies, cycles, any nesting
 * depth), it answers and never throws. Both backends answer alike: same verdicts, violations, paths, messages.
 */
export interface Validator<T> {
  /** Which backend answers `is` (violations are always recorded by the same walk, so they never differ). */
  readonly backend: ValidatorBackend
  /** True when `value` matches. The fastest check: stops at the first problem and allocates nothing. */
  is(value: unknown): value is T
  /** Every violation, each with its path (at most `maxViolations` listed, the rest counted). */
  validate(value: unknown, options?: ValidateOptions): ValidationResult<T>
  /** The first violation in reading order, or `undefined` when the value matches. Stops there. */
  firstViolation(value: unknown): Violation | undefined
}

function run(check: Check, value: unknown, sink: Sink): void {
  let ok: boolean
  try {
    ok = check(value, sink)
  } catch (error) {
    // Only reachable through the engine's own limits (a RangeError deep in a host call); report, never throw.
    sink.add('unreadable', `validation stopped: ${errorText(error)}`)
    return
  }
  if (!ok && sink.count === 0) sink.add('unreadable', changedWhileReading)
}

/**
 * The first violation as the closure walk records it (the closure backend's `firstViolation`, and the generated
 * one's answer where its locating walk cannot give one).
 */
export function closureFirstViolation(check: Check): FirstViolation {
  return (value) => {
    const sink = new Sink(1, 1)
    run(check, value, sink)
    return firstOf(sink.violations())
  }
}

/**
 * How many `is` calls a validator created to generate its code when hot ({@link createValidator}'s `hot`) answers
 * with closures before it generates: about where generating (a few hundred microseconds) has paid for itself.
 */
export const GENERATE_AFTER_CALLS = 1000

/** The accept-only answer of the closure walk, never throwing. */
function closureAccept<T>(check: Check): (value: unknown) => value is T {
  return ((value: unknown) => {
    try {
      return check(value, null)
    } catch {
      return false
    }
  }) as (value: unknown) => value is T
}

class CompiledValidator<T> implements Validator<T> {
  backend: ValidatorBackend = 'closures'
  /**
   * Own properties rather than methods: with generated code they are the schema's generated functions themselves,
   * so a call goes straight into the schema's own code (a method shared by every validator sees every schema's
   * functions and values).
   */
  is: (value: unknown) => value is T
  firstViolation: (value: unknown) => Violation | undefined
  /** Compiles the closure walk; dropped once it ran. */
  #compile: (() => Check) | undefined
  #compiled: Check | undefined
  /** The code generation still to do. */
  #generate: ((check: Check) => GeneratedValidator | undefined) | undefined

  constructor(compile: () => Check, generate: ((check: Check) => GeneratedValidator | undefined) | undefined, hot: boolean) {
    this.#compile = compile
    this.#generate = generate
    if (!hot) {
      const check = this.#check()
      this.is = closureAccept(check)
      this.firstViolation = closureFirstViolation(check)
      this.generateNow()
      return
    }
    // Nothing is compiled before the first use: these two stand in until then, and then for an `is` taken off early.
    this.is = ((value: unknown) => this.#warm().is(value)) as (value: unknown) => value is T
    this.firstViolation = (value) => this.#warm().firstViolation(value)
  }

  #check(): Check {
    if (this.#compiled === undefined) {
      this.#compiled = (this.#compile as () => Check)()
      this.#compile = undefined
    }
    return this.#compiled
  }

  /** A `hot` validator's first use: compiles the closures, which count their calls until the code is generated. */
  #warm(): this {
    if (this.#compiled !== undefined) return this
    const check = this.#check()
    const closures = closureAccept<T>(check)
    this.firstViolation = closureFirstViolation(check)
    if (this.#generate === undefined) {
      this.is = closures
      return this
    }
    let remaining = GENERATE_AFTER_CALLS
    this.is = ((value: unknown) => {
      if (--remaining === 0) this.generateNow()
      return closures(value)
    }) as (value: unknown) => value is T
    return this
  }

  /** Generates the schema's code now, if it is still to do; from then on `is` and `firstViolation` are the generated ones. */
  generateNow(): void {
    const generate = this.#generate
    if (generate === undefined) return
    this.#generate = undefined
    const check = this.#check()
    let generated: GeneratedValidator | undefined
    try {
      generated = generate(check)
    } catch {
      // `is` never throws: a generator that fails leaves the closures answering (they give the same verdicts).
      generated = undefined
    }
    if (generated === undefined) {
      // No code for this schema (too large, or the host forbids code generation): the closures stay, uncounted.
      this.is = closureAccept(check)
      this.firstViolation = closureFirstViolation(check)
      return
    }
    this.backend = 'generated'
    this.firstViolation = generated.firstViolation
    this.is = generated.accept as (value: unknown) => value is T
  }

  validate(value: unknown, options?: ValidateOptions): ValidationResult<T> {
    if (this.is(value)) return { ok: true, value }
    // Read once and never throwing: a hostile options object means the default.
    const requested = readOption(options, 'maxViolations') ?? DEFAULT_MAX_VIOLATIONS
    const keep = typeof requested === 'number' && Number.isInteger(requested) && requested > 0 ? requested : DEFAULT_MAX_VIOLATIONS
    const sink = new Sink(keep, Number.POSITIVE_INFINITY)
    run(this.#check(), value, sink)
    if (sink.count === 0) sink.add('unreadable', changedWhileReading)
    const violations = sink.violations()
    return { ok: false, violations, omitted: sink.count - violations.length }
  }
}

/**
 * A {@link Validator} of the check `compile` makes; `generate`, when given, makes the schema's generated code from
 * it: its accept-only check must agree with `check(value, null)`, its first violation with the closure walk's. Both
 * run at once; with `hot`, nothing runs before the validator's first use, and the code is generated after
 * {@link GENERATE_AFTER_CALLS} calls of `is` (closures answer until then: the same verdicts, violations and messages).
 */
export function createValidator<T>(compile: () => Check, generate?: (check: Check) => GeneratedValidator | undefined, hot = false): Validator<T> {
  return new CompiledValidator<T>(compile, generate, hot)
}
