import type { ToolExecution, ToolExecutionResult } from '@dsh/tools-core'
import { notifyListeners, type ToolRegistry } from '@dsh/tools-registry'
import type { Context, Logger } from 'cordis'
import { resolveTimeoutBudget, type ResolvedTimeoutPolicyConfig } from './config.js'
import type { LateSettlement } from './events.js'
import { TimedCall, type TimedCallHost } from './timed-call.js'

const MAX_DELAY_MS = 2_147_483_647

function describeThrown(error: unknown): string {
  try {
    if (error instanceof Error) return `${error.name}: ${error.message}`
    return String(error)
  } catch {
    return 'an unprintable value'
  }
}

/** The own property `key` of `value` (an own getter is called), or `undefined`; inherited properties do not count. */
function ownValue(value: object, key: string): unknown {
  const descriptor = Object.getOwnPropertyDescriptor(value, key)
  if (descriptor === undefined) return undefined
  if (Object.hasOwn(descriptor, 'value')) return descriptor.value
  const getter = Object.hasOwn(descriptor, 'get') ? descriptor.get : undefined
  return getter === undefined ? undefined : Reflect.apply(getter, value, [])
}

/**
 * The state of one loaded policy: its configuration, the `tools/execute` wrapper it registers, and the calls
 * running under its deadlines (so disposing the policy can drop their timers).
 */
export class DeadlineEnforcer implements TimedCallHost {
  readonly graceMs: number
  readonly #ctx: Context
  readonly #tools: ToolRegistry
  readonly #config: ResolvedTimeoutPolicyConfig
  readonly #calls = new Set<TimedCall>()
  /** Definitions whose `timeoutMs` was found invalid, so the warning is logged once per definition. */
  readonly #reported = new WeakSet<object>()
  #logger: Logger | undefined
  #disposed = false

  constructor(ctx: Context, tools: ToolRegistry, config: ResolvedTimeoutPolicyConfig) {
    this.#ctx = ctx
    this.#tools = tools
    this.#config = config
    this.graceMs = config.graceMs
  }

  /** The `tools/execute` wrapper. Calls without a budget, or already cancelled, pass straight through. */
  readonly wrap = (exec: ToolExecution, next: () => Promise<ToolExecutionResult>): Promise<ToolExecutionResult> => {
    if (this.#disposed) return next()
    const timeoutMs = this.#budgetOf(exec)
    if (timeoutMs === undefined) return next()
    const parent = exec.signal
    // Already cancelled: nothing to time; the registry reports it (ABORTED_BEFORE_DISPATCH).
    if (parent.aborted) return next()
    const call = new TimedCall(exec, parent, timeoutMs, this)
    this.#calls.add(call)
    return call.run(next)
  }

  release(call: TimedCall): void {
    this.#calls.delete(call)
  }

  readonly reportListener = (error: unknown): void => {
    this.#warn(`an abort listener of a timed tool call threw: ${describeThrown(error)}`)
  }

  /**
   * Tells `timeout/late-settlement` listeners, each called synchronously as `ctx.emit` would: a throw, or the
   * rejection of the promise an `async` listener returns, is logged, never left unhandled.
   */
  reportLate(settlement: LateSettlement): void {
    notifyListeners(this.#ctx, 'timeout/late-settlement', [settlement], (reason) =>
      this.#warn(`a timeout/late-settlement listener failed for ${JSON.stringify(settlement.name)}: ${describeThrown(reason)}`),
    )
  }

  /** Stops enforcing: drops every timer of the running calls. They finish as if the policy had never been there. */
  dispose(): void {
    this.#disposed = true
    for (const call of this.#calls) call.detach()
    this.#calls.clear()
  }

  #budgetOf(exec: ToolExecution): number | undefined {
    const definition = this.#tools.definitionOf(exec)
    let declared: unknown
    try {
      // Its own field only: a definition without one must not inherit a budget from a polluted Object.prototype.
      declared = definition === undefined ? undefined : ownValue(definition, 'timeoutMs')
    } catch (error) {
      declared = error
    }
    if (declared !== undefined && !(typeof declared === 'number' && Number.isInteger(declared) && declared > 0 && declared <= MAX_DELAY_MS)) {
      // The registry checked it at registration; the definition was changed since. Fall back as if undeclared.
      if (definition !== undefined && !this.#reported.has(definition)) {
        this.#reported.add(definition)
        this.#warn(
          `tool ${JSON.stringify(exec.name)} declares an invalid timeoutMs (${describeThrown(declared)}); ` +
            'its calls get the default budget, if any',
        )
      }
      declared = undefined
    }
    return resolveTimeoutBudget(declared as number | undefined, this.#config)
  }

  #warn(message: string): void {
    try {
      this.#logger ??= this.#ctx.logger('timeout-policy')
      // As data, not as a format string: a thrown message may contain `%`.
      this.#logger.warn('%s', message)
    } catch {
      // A logger exporter that throws must not turn a warning into a failed call.
    }
  }
}
