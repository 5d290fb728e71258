import type { MeterProvider, TracerProvider } from '@opentelemetry/api'
import { OtelConfigError } from './otel-config-error.js'

/** Which part of a call a {@link ContentCapture.redact} function is given. */
export type CapturedPart = 'arguments' | 'result'

/**
 * The opt-in recording of arguments and results (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`). Both are
 * off by default: arguments and results hold secrets (a token in a command, a credential in a file read).
 */
export interface ContentCapture {
  /**
   * Record each call's arguments (JSON) as `gen_ai.tool.call.arguments`. Needs {@link redact}: the pipeline has no
   * stage that reviews arguments, so they are only ever recorded through the redaction the harness provides.
   */
  readonly arguments?: boolean | undefined
  /**
   * Record each call's result content (the JSON of its content blocks) as `gen_ai.tool.call.result`. What is
   * recorded is the delivered result, after every `tools/post-execute` listener (a redaction policy included) has
   * reviewed it, and then after {@link redact} when given.
   */
  readonly results?: boolean | undefined
  /**
   * Called with the JSON text of the arguments or the result before it is recorded; what it returns is recorded
   * (then cut to {@link maxLength}). A throw records `[redaction failed]` instead of the text.
   */
  readonly redact?: ((text: string, part: CapturedPart) => string) | undefined
  /** The most characters recorded per attribute: an integer from 16 to 1,048,576. Default: 4096. */
  readonly maxLength?: number | undefined
}

/** The configuration of the plugin. Every key is optional. */
export interface OtelConfig {
  /**
   * The tracer provider to use. Default: the global one (`trace.getTracerProvider()`), read once when the plugin
   * loads: register the SDK before loading the plugin (or reload the plugin after registering it).
   */
  readonly tracerProvider?: TracerProvider | undefined
  /** The meter provider to use. Default: the global one (`metrics.getMeterProvider()`), read once at load. */
  readonly meterProvider?: MeterProvider | undefined
  /** Opt-in recording of arguments and results. Default: nothing recorded. */
  readonly content?: ContentCapture | undefined
}

/** The configuration after validation. */
export interface ResolvedOtelConfig {
  readonly tracerProvider: TracerProvider | undefined
  readonly meterProvider: MeterProvider | undefined
  readonly captureArguments: boolean
  readonly captureResults: boolean
  readonly redact: ((text: string, part: CapturedPart) => string) | undefined
  readonly maxLength: number
}

/** Default values of the configuration keys that have one. */
export const OTEL_DEFAULTS: { readonly maxLength: number } = Object.freeze({ maxLength: 4096 })

const MAX_CAPTURE = 1_048_576

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}

/**
 * Validates a configuration and fills in defaults.
 *
 * @throws {@link OtelConfigError} listing every problem
 */
export function resolveOtelConfig(config: OtelConfig | undefined): ResolvedOtelConfig {
  const issues: string[] = []
  const input: Record<string, unknown> = isObject(config) ? config : {}
  if (config !== undefined && !isObject(config)) issues.push(`config: must be an object, got ${typeof config}`)
  const tracerProvider = input.tracerProvider
  if (tracerProvider !== undefined && (!isObject(tracerProvider) || typeof tracerProvider.getTracer !== 'function')) {
    issues.push('tracerProvider: must be an OpenTelemetry TracerProvider (an object with getTracer)')
  }
  const meterProvider = input.meterProvider
  if (meterProvider !== undefined && (!isObject(meterProvider) || typeof meterProvider.getMeter !== 'function')) {
    issues.push('meterProvider: must be an OpenTelemetry MeterProvider (an object with getMeter)')
  }
  const content = input.content
  let captureArguments = false
  let captureResults = false
  let redact: ResolvedOtelConfig['redact']
  let maxLength = OTEL_DEFAULTS.maxLength
  if (content !== undefined) {
    if (!isObject(content)) issues.push('content: must be an object')
    else {
      for (const key of ['arguments', 'results'] as const) {
        if (content[key] !== undefined && typeof content[key] !== 'boolean') issues.push(`content.${key}: must be a boolean`)
      }
      captureArguments = content.arguments === true
      captureResults = content.results === true
      if (content.redact !== undefined && typeof content.redact !== 'function') issues.push('content.redact: must be a function')
      else redact = content.redact as ResolvedOtelConfig['redact']
      if (captureArguments && redact === undefined) {
        issues.push('content.arguments: recording arguments needs content.redact (no pipeline stage reviews arguments)')
      }
      if (content.maxLength !== undefined) {
        const value = content.maxLength
        if (typeof value !== 'number' || !Number.isInteger(value) || value < 16 || value > MAX_CAPTURE) {
          issues.push(`content.maxLength: must be an integer from 16 to ${MAX_CAPTURE}, got ${String(value)}`)
        } else maxLength = value
      }
    }
  }
  if (issues.length > 0) throw new OtelConfigError(issues)
  return {
    tracerProvider: tracerProvider as TracerProvider | undefined,
    meterProvider: meterProvider as MeterProvider | undefined,
    captureArguments,
    captureResults,
    redact,
    maxLength,
  }
}
