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

class CompiledValidator<T> implements Validator<T> {
  backend: ValidatorBackend
  /**
   * Own properties rather than methods: with generated code they are the schema's generated functions themselves,
   * so a call goes straight into the schema's own code (a method shared by every validator sees every schema's
   * functions and values).
   */
  is: (value: unknown) => value is T
  firstViolation: (value: unknown) => Violation | undefined
  /** The code generation still to do, for a validator that generates when hot. */
  #generate: (() => GeneratedValidator | undefined) | undefined

  constructor(
    private readonly check: Check,
    generate: (() => GeneratedValidator | undefined) | undefined,
    hot: boolean,
  ) {
    this.backend = 'closures'
    this.firstViolation = closureFirstViolation(check)
    const closures = ((value: unknown) => {
      try {
        return check(value, null)
      } catch {
        return false
      }
    }) as (value: unknown) => value is T
    this.is = closures
    this.#generate = generate
    if (generate === undefined) return
    if (!hot) {
      this.generateNow()
      return
    }
    let remaining = GENERATE_AFTER_CALLS
    this.is = ((value: unknown) => {
      if (--remaining === 0) this.generateNow()
      return closures(value)
    }) as (value: unknown) => value is T
  }

  /** Generates the schema's code now, if it is still to do; from then on `is` and `firstViolation` are the generated ones. */
  generateNow(): void {
    const generate = this.#generate
    if (generate === undefined) return
    this.#generate = undefined
    let generated: GeneratedValidator | undefined
    try {
      generated = generate()
    } catch {
      // `is` never throws: a generator that fails leaves the closures answering (they give the same verdicts).
      generated = undefined
    }
    if (generated === undefined) {
      // No code for this schema (too large, or the host forbids code generation): the closures stay, uncounted.
      this.is = ((value: unknown) => {
        try {
          return this.check(value, null)
        } catch {
          return false
        }
      }) as (value: unknown) => value is T
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
    run(this.check, value, sink)
    if (sink.count === 0) sink.add('unreadable', changedWhileReading)
    const violations = sink.violations()
    return { ok: false, violations, omitted: sink.count - violations.length }
  }
}

/**
 * Wraps a compiled check as a {@link Validator}; `generate`, when given, makes the schema's generated code: its
 * accept-only check must agree with `check(value, null)`, its first violation with the closure walk's, and neither
 * may throw. It runs at once, or with `hot` after {@link GENERATE_AFTER_CALLS} calls of `is` (closures answer
 * until then: the same verdicts, violations and messages).
 */
export function createValidator<T>(check: Check, generate?: () => GeneratedValidator | undefined, hot = false): Validator<T> {
  return new CompiledValidator<T>(check, generate, hot)
}
