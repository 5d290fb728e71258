import {
  SYSTEM_PROMPT_SERVICE,
  type Agent,
  type SystemPromptAssembly,
  type SystemPromptService,
  type SystemPromptToolProvider,
  type SystemPromptTools,
} from '@dsh/tools-core'
import type { Context } from 'cordis'
import { describeThrown, describeValue } from './describe-value.js'
import { InvalidToolPolicyError } from './invalid-tool-policy-error.js'
import { FieldReadError, isRecord, readOwn } from './own-field.js'
import { isAbortSignal, signalAborted, signalReason } from '@dsh/tools-core'
import type { ToolCatalog } from './tool-catalog.js'
import { projectSchemas } from './tool-scope.js'

/** What {@link contributeToSystemPrompt} is told when the `systemPrompt` service cannot take a contribution. */
export type SystemPromptWarning = (message: string) => void

type SeamMethod = keyof SystemPromptService

/** Thrown by a {@link SystemPromptSeam} method the service does not have; reported, never thrown into cordis. */
class MissingSeamMethod extends Error {
  constructor(readonly method: SeamMethod) {
    super(`ctx.${SYSTEM_PROMPT_SERVICE} has no ${method}() method`)
  }
}

/** The service's method `method`, or `undefined` when it has none (reading it may throw: a hostile proxy). */
function seamMethod(service: object, method: SeamMethod): ((provider: unknown) => unknown) | undefined {
  try {
    const found: unknown = (service as Record<string, unknown>)[method]
    return typeof found === 'function' ? (found as (provider: unknown) => unknown) : undefined
  } catch {
    return undefined
  }
}

/**
 * What a contribution is handed: both methods of the seam, each calling the service's own. A service needs only the
 * method a contribution uses (the registry's tool schemas need `tools()`; guidance needs `section()`): calling one the
 * service lacks is reported as such, for that contribution only.
 */
function seamOf(service: object): Required<SystemPromptService> {
  const call = (method: SeamMethod, provider: unknown): (() => void) => {
    const found = seamMethod(service, method)
    if (found === undefined) throw new MissingSeamMethod(method)
    return found.call(service, provider) as () => void
  }
  return { tools: (provider) => call('tools', provider), section: (provider) => call('section', provider) }
}

/**
 * Contributes to the system prompt whenever a `systemPrompt` service ({@link SystemPromptService} of
 * `@dsh/tools-core`) is present: an optional dependency, as cordis 4 expresses one, a child fiber of `ctx`'s that
 * injects `systemPrompt`. `contribute` runs each time a service appears (or replaces another) and returns the
 * disposer the service gave it (`service.tools(provider)` or `service.section(provider)`); that disposer runs when
 * the service goes away or is replaced, when `ctx`'s fiber is disposed, or when the returned function is called.
 * Without a service nothing happens, and nothing fails.
 *
 * A service needs only the method `contribute` calls: one without it (the registry's feed calls `tools()`, a guidance
 * section `section()`), a `contribute` that throws and a disposer that throws are reported to `warn` (default: `ctx.logger('tools').warn`), never thrown into cordis. Throws `InvalidToolPolicyError`
 * (`INVALID_CONFIG`) at once when `label` is not a non-empty string or `contribute` (or `warn`) is not a function.
 *
 * @example
 * ```ts
 * import type { Context } from 'cordis'
 * import { contributeToSystemPrompt } from '@dsh/tools-registry'
 *
 * export function apply(ctx: Context) {
 *   contributeToSystemPrompt(ctx, 'files guidance', (systemPrompt) =>
 *     systemPrompt.section(() => ({ id: 'files', title: 'Files', text: 'Read a file before you edit it.' })),
 *   )
 * }
 * ```
 */
export function contributeToSystemPrompt(
  ctx: Context,
  label: string,
  contribute: (service: Required<SystemPromptService>) => () => void,
  warn?: SystemPromptWarning,
): () => void {
  if (typeof label !== 'string' || label === '') {
    throw new InvalidToolPolicyError(`contributeToSystemPrompt needs a label (a non-empty string) for its warnings, got ${describeValue(label)}`)
  }
  if (typeof contribute !== 'function') {
    throw new InvalidToolPolicyError(
      `contributeToSystemPrompt needs a function (service) => disposer, for example (service) => service.section(provider), got ${describeValue(contribute)}`,
    )
  }
  if (warn !== undefined && typeof warn !== 'function') {
    throw new InvalidToolPolicyError(`contributeToSystemPrompt's warn must be a function (message) => void, got ${describeValue(warn)}`)
  }
  const report: SystemPromptWarning =
    warn ??
    ((message) => {
      try {
        ctx.logger('tools').warn(message)
      } catch {
        // A logger that throws must not fail the plugin that contributes.
      }
    })
  const apply = (inner: Context): void => {
    const service: unknown = inner.get(SYSTEM_PROMPT_SERVICE)
    if ((typeof service !== 'object' && typeof service !== 'function') || service === null) {
      report(`ctx.${SYSTEM_PROMPT_SERVICE} is ${describeValue(service)}, not a service with tools() or section(); not contributing ${label} to it`)
      return
    }
    inner.effect(() => {
      let dispose: unknown
      try {
        dispose = contribute(seamOf(service))
      } catch (error) {
        if (error instanceof MissingSeamMethod) {
          report(`ctx.${SYSTEM_PROMPT_SERVICE} has no ${error.method}() method (${describeValue(service)}); not contributing ${label} to it`)
        } else report(`contributing ${label} to ctx.${SYSTEM_PROMPT_SERVICE} threw: ${describeThrown(error)}`)
        return () => undefined
      }
      if (typeof dispose !== 'function') {
        report(`ctx.${SYSTEM_PROMPT_SERVICE} returned ${describeValue(dispose)} instead of a disposer for ${label}; it cannot be removed`)
      }
      return () => {
        if (typeof dispose !== 'function') return
        const run = dispose as () => unknown
        dispose = undefined
        try {
          run()
        } catch (error) {
          report(`removing ${label} from ctx.${SYSTEM_PROMPT_SERVICE} threw: ${describeThrown(error)}`)
        }
      }
    }, `systemPrompt: ${label}`)
  }
  // What `ctx.inject([...], callback)` does, with a name that says whose child plugin it is in reports.
  const fiber = ctx.plugin({ name: `system-prompt (${label})`, inject: [SYSTEM_PROMPT_SERVICE], apply })
  return () => {
    void fiber.dispose()
  }
}

/** Reads `{ agent?, signal? }` (own fields only). Throws {@link InvalidToolPolicyError}. */
function readAssembly(assembly: unknown): { agent: Agent | undefined; signal: AbortSignal | undefined } {
  if (assembly === undefined || assembly === null) return { agent: undefined, signal: undefined }
  if (!isRecord(assembly, 'the assembly')) {
    throw new InvalidToolPolicyError(
      `A system-prompt assembly must be an object { agent?, signal? }, got ${describeValue(assembly)}`,
    )
  }
  const agent = readOwn(assembly, 'agent')
  const signal = readOwn(assembly, 'signal')
  if (agent !== undefined && (typeof agent !== 'object' || agent === null)) {
    throw new InvalidToolPolicyError(
      `A system-prompt assembly's agent must be the agent object its tools are scoped to (or absent), got ${describeValue(agent)}`,
    )
  }
  if (signal !== undefined && !isAbortSignal(signal)) {
    throw new InvalidToolPolicyError(
      `A system-prompt assembly's signal must be an AbortSignal (or absent), got ${describeValue(signal)}`,
    )
  }
  return { agent: agent as Agent | undefined, signal }
}

/**
 * The registry's tool-schema provider: for each assembly, the schemas its agent sees after restrictions (as
 * `schemas(agent)` returns them) and every name known for that agent before restrictions.
 */
export function createToolSchemaProvider(catalog: ToolCatalog): SystemPromptToolProvider {
  return (assembly: SystemPromptAssembly): SystemPromptTools => {
    let read: ReturnType<typeof readAssembly>
    try {
      read = readAssembly(assembly)
    } catch (error) {
      if (!(error instanceof FieldReadError)) throw error
      throw new InvalidToolPolicyError(`A system-prompt assembly cannot be read: ${error.message}`, { cause: error.cause })
    }
    // An assembly given up on gets no answer: the assembler is told why, as `signal.throwIfAborted()` would.
    if (read.signal !== undefined && signalAborted(read.signal)) throw signalReason(read.signal)
    return { schemas: projectSchemas(catalog.visible(read.agent)), knownNames: catalog.knownNames(read.agent) }
  }
}

/** Registers the registry's tool-schema provider with every `systemPrompt` service while `ctx`'s fiber lives. */
export function feedSystemPrompt(ctx: Context, catalog: ToolCatalog, warn: SystemPromptWarning): void {
  const provider = createToolSchemaProvider(catalog)
  contributeToSystemPrompt(ctx, 'the tool schemas of ctx.tools', (service) => service.tools(provider), warn)
}
