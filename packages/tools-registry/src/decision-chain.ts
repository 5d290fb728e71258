import type { Hook } from 'cordis'
import { describeThrown, isThenable } from './describe-value.js'

/** A listener's failure to decide: which listener (by its plugin) and how. */
export interface ChainFailure {
  /** The plugin that registered the listener, for messages and logs. */
  readonly plugin: string
  /** What went wrong, as a phrase: `returned nothing`, `threw: TypeError: boom`. */
  readonly problem: string
  /** What the listener threw, if it threw. */
  readonly cause?: unknown
}

/** How to run one kind of decision waterfall. */
export interface DecisionChainOptions<D extends object> {
  /** Calls a listener with the event's arguments and `next`. */
  readonly invoke: (callback: Hook['callback'], next: () => Promise<D>) => unknown
  /** Reads a returned (awaited) value as a decision, or says what is wrong with it. */
  readonly read: (value: unknown) => D | string
  /** The decision at the bottom of the chain (what `next()` of the last listener resolves to). */
  readonly base: D
  /** What `next()` resolves to once the chain has failed, so outer listeners see a refusal. */
  readonly refusal: D
}

function pluginName(hook: Hook): string {
  try {
    return hook.ctx.fiber.name
  } catch {
    return 'an unknown plugin'
  }
}

/**
 * A decision waterfall (`tools/pre-execute`, `tools/post-execute`) over a snapshot of its listeners, failing
 * closed: the first listener that returns a malformed decision, returns nothing, throws, or calls `next()` twice
 * sets {@link failure}. Outer listeners then receive the `refusal` from `next()`, and whatever they return, the
 * caller treats the run as failed. Each listener's decision is read once into a fresh object.
 *
 * Written with explicit promise hops rather than nested `async` functions: a listener that decides synchronously
 * costs no extra microtask, and a pass-through one costs one.
 */
export class DecisionChain<D extends object> {
  /** The first failure, if any listener failed to decide. */
  failure: ChainFailure | undefined = undefined

  constructor(
    private readonly hooks: readonly Hook[],
    private readonly options: DecisionChainOptions<D>,
  ) {}

  /** Runs the chain; resolves to the outermost decision (meaningless when {@link failure} is set). */
  run(): Promise<D> {
    return this.step(0)
  }

  private fail(hook: Hook, problem: string, cause?: unknown): D {
    this.failure ??= cause === undefined ? { plugin: pluginName(hook), problem } : { plugin: pluginName(hook), problem, cause }
    return this.options.refusal
  }

  private settle(hook: Hook, value: unknown): D {
    let decision: D | string
    try {
      decision = this.options.read(value)
    } catch (error) {
      return this.fail(hook, `returned a decision that cannot be read (${describeThrown(error)})`, error)
    }
    if (typeof decision === 'string') return this.fail(hook, decision)
    return this.failure === undefined ? decision : this.options.refusal
  }

  private step(index: number): Promise<D> {
    const hook = this.hooks[index]
    if (hook === undefined) return Promise.resolve(this.options.base)
    let called = false
    const next = (): Promise<D> => {
      if (called) {
        this.fail(hook, 'called next() twice')
        throw new Error('next() called multiple times')
      }
      called = true
      return this.step(index + 1)
    }
    let value: unknown
    try {
      value = this.options.invoke(hook.callback, next)
    } catch (error) {
      return Promise.resolve(this.fail(hook, `threw: ${describeThrown(error)}`, error))
    }
    if (!isThenable(value)) return Promise.resolve(this.settle(hook, value))
    return Promise.resolve(value).then(
      (settled) => this.settle(hook, settled),
      (error: unknown) => this.fail(hook, `threw: ${describeThrown(error)}`, error),
    )
  }
}
