// Helpers shared by this package's tests (not part of the package).
import type { ToolExecution, ToolExecutionInput, ToolExecutionResult } from '@dsh/tools-core'
import { ToolRegistry, type ToolRegistration, type ToolRegistryConfig } from '@dsh/tools-registry'
import { Context, type Fiber } from 'cordis'
import type { Config } from './config.js'
import type { LateSettlement } from './events.js'
import { TimeoutPolicy } from './timeout-policy.js'

/** A root context with the registry and (unless `policy: false`) the timeout policy loaded. */
export interface Harness {
  readonly ctx: Context
  readonly tools: ToolRegistry
  /** The policy's fiber (undefined when it was not loaded). */
  readonly policy: Fiber | undefined
  /** Every `tools/result` delivery, in order. */
  readonly delivered: Array<{ readonly exec: Readonly<ToolExecution>; readonly result: ToolExecutionResult }>
  /** Every `timeout/late-settlement` event, in order. */
  readonly late: LateSettlement[]
  /** Warnings logged by the policy (`timeout-policy` logger). */
  readonly warnings: string[]
}

/** Options of {@link createHarness}. */
export interface HarnessOptions {
  /** The policy's configuration; `false` to not load the policy. */
  readonly policy?: Config | false
  /** The registry's configuration (its `abortGraceMs`). */
  readonly registry?: ToolRegistryConfig
}

/** A fresh `Context` with `ToolRegistry` and the timeout policy loaded. */
export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const ctx = new Context()
  await ctx.plugin(ToolRegistry, options.registry ?? {})
  const warnings: string[] = []
  ctx.logger.exporter({
    export(message) {
      if (message.name === 'timeout-policy' && message.type === 'warn') warnings.push(message.args.slice(1).map(String).join(' '))
    },
  })
  const delivered: Harness['delivered'] = []
  const late: LateSettlement[] = []
  ctx.on('tools/result', (exec, result) => void delivered.push({ exec, result }))
  ctx.on('timeout/late-settlement', (settlement) => void late.push(settlement))
  const policy = options.policy === false ? undefined : await ctx.plugin(TimeoutPolicy, options.policy ?? {})
  return { ctx, tools: ctx.tools, policy, delivered, late, warnings }
}

/** How a {@link timedTool} behaves. */
export interface TimedToolOptions {
  /** The tool's declared budget. */
  readonly timeoutMs?: number
  /** When the body finishes on its own, in ms after it started; `Infinity` for never. Default 10. */
  readonly runsFor?: number
  /** Whether it finishes by throwing instead of returning. Default false. */
  readonly fails?: boolean
  /** Whether it stops when its signal fires. Default true. */
  readonly honoursSignal?: boolean
  /** How long it takes to stop after its signal fired, in ms (0: it rejects from the abort listener). Default 0. */
  readonly stopsAfter?: number
}

/** What a {@link timedTool} saw. */
export interface TimedToolRecord {
  /** The signal each call's body got. */
  readonly signals: AbortSignal[]
  /** How each call ended: `returned`, `threw`, `stopped` (by its signal). */
  readonly endings: string[]
}

/**
 * A tool whose body runs for a given time on the (fake) clock and returns `[text]` plus `meta: { ranFor }`; it
 * honours its signal (rejecting with the signal's reason) unless told not to.
 */
export function timedTool(name: string, options: TimedToolOptions = {}): ToolRegistration & TimedToolRecord {
  const { runsFor = 10, fails = false, honoursSignal = true, stopsAfter = 0 } = options
  const signals: AbortSignal[] = []
  const endings: string[] = []
  const definition: ToolRegistration = {
    name,
    description: `The ${name} tool.`,
    parameters: { type: 'object', properties: {} },
    execute(_args, exec) {
      const signal = exec.signal
      signals.push(signal)
      return new Promise((resolve, reject) => {
        let finish: ReturnType<typeof setTimeout> | undefined
        if (Number.isFinite(runsFor)) {
          finish = setTimeout(() => {
            signal.removeEventListener('abort', onAbort)
            if (fails) {
              endings.push('threw')
              reject(new Error(`${name} broke`))
            } else {
              endings.push('returned')
              resolve({ content: [{ type: 'text', text: `${name} done` }], meta: { ranFor: runsFor } })
            }
          }, runsFor)
        }
        const stop = (): void => {
          if (finish !== undefined) clearTimeout(finish)
          endings.push('stopped')
          reject(signal.reason)
        }
        function onAbort(): void {
          if (stopsAfter === 0) stop()
          else setTimeout(stop, stopsAfter)
        }
        if (honoursSignal) signal.addEventListener('abort', onAbort, { once: true })
      })
    },
  }
  if (options.timeoutMs !== undefined) definition.timeoutMs = options.timeoutMs
  return Object.assign(definition, { signals, endings })
}

let nextCallId = 0

/** A call of `name` with a fresh call id. */
export function call(name: string, extra: Partial<ToolExecutionInput> = {}): ToolExecutionInput {
  nextCallId += 1
  return { callId: `call_${nextCallId}`, name, arguments: {}, ...extra }
}

/** A promise with its state visible synchronously, for asserting "not yet" under fake timers. */
export interface Tracked<T> {
  readonly promise: Promise<T>
  /** True once the promise resolved. */
  readonly settled: boolean
  /** The value, once resolved. */
  readonly value: T | undefined
}

/** Tracks `promise` (which must not reject). */
export function track<T>(promise: Promise<T>): Tracked<T> {
  const tracked = { promise, settled: false, value: undefined as T | undefined }
  void promise.then((value) => {
    tracked.settled = true
    tracked.value = value
  })
  return tracked
}

/** The text of a result's content. */
export function textOf(result: ToolExecutionResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('')
}
