import type { Agent, ToolExecutionInput, ToolExecutionResult, ToolSchema } from '@dsh/tools-core'
import { dynamicTool, jsonSchema, type JSONSchema7, type Tool, type ToolExecutionOptions } from 'ai'
import { assertOptionsObject, ProviderInputError, readingInput } from '../input-error.js'
import { copyJson, isRecord } from '../json-equal.js'
import { toAiSdkModelOutput } from './model-output.js'

/**
 * What {@link aiSdkTools} needs of a registry: `ctx.tools` (a `ToolRegistry`) fits as it is. Only these functions
 * are called, so the subpath never reaches into the registry's internals.
 */
export interface AiSdkToolSource {
  /** The model-facing schemas of every tool `agent` sees (after its restrictions). */
  readonly schemas: (agent?: Agent) => readonly ToolSchema[]
  /** Runs one call through the whole pipeline; never rejects. */
  readonly execute: (input: ToolExecutionInput) => Promise<ToolExecutionResult>
  /**
   * `'parallel'` when a call of tool `name` (as `agent` sees it) may run together with other parallel calls (the
   * tool declared `concurrencySafe`), `'serial'` otherwise. A source without it has every call run alone.
   */
  readonly executionMode?: ((call: { readonly name: string; readonly agent?: Agent | undefined }) => 'parallel' | 'serial') | undefined
}

/** Options of {@link aiSdkTools}. */
export interface AiSdkToolsOptions {
  /** The agent whose view of the tools (own tools, restrictions, guards) applies; the global view when absent. */
  readonly agent?: Agent | undefined
}

/**
 * One registry tool as an AI SDK tool: a dynamic tool (its input is `unknown` to TypeScript: the registry validates
 * it) whose output is the frozen {@link ToolExecutionResult}.
 */
export type AiSdkTool = Tool<unknown, ToolExecutionResult> & { readonly type: 'dynamic' }

/** A registry's visible tools as an AI SDK `ToolSet`, keyed by tool name: pass it as `tools` to `generateText` / `streamText`. */
export type AiSdkToolSet = Record<string, AiSdkTool>

function checkSource(registry: unknown): AiSdkToolSource {
  if (!isRecord(registry) || typeof registry['schemas'] !== 'function' || typeof registry['execute'] !== 'function') {
    throw new ProviderInputError('aiSdkTools expects a tool registry (ctx.tools): an object with schemas() and execute()')
  }
  const mode = registry['executionMode']
  if (mode !== undefined && typeof mode !== 'function') throw new ProviderInputError('aiSdkTools: the registry\'s executionMode is not a function')
  return registry as unknown as AiSdkToolSource
}

/**
 * The order the calls of one tool set run in, the rule of the registry's `executeStep`: calls start in the order
 * the SDK invokes `execute` (the model's order within a step); a run of consecutive parallel calls runs together,
 * and a serial call waits until every call before it has settled and holds back every call after it.
 */
class CallLane {
  /** Settles when the last serial call admitted, and everything before it, has settled. */
  private barrier: Promise<unknown> = Promise.resolve()
  /** Settles when every parallel call admitted since that serial call has settled. */
  private parallel: Promise<unknown> = Promise.resolve()

  /** Runs `call` in its turn; `mode` is the call's, read when it arrives. */
  run<T>(mode: 'parallel' | 'serial', call: () => Promise<T>): Promise<T> {
    if (mode === 'parallel') {
      const running = this.barrier.then(call)
      this.parallel = Promise.all([this.parallel, running.catch(() => undefined)])
      return running
    }
    const running = Promise.all([this.barrier, this.parallel]).then(call)
    this.barrier = running.catch(() => undefined)
    this.parallel = Promise.resolve()
    return running
  }
}

/** The execution mode of a call, `'serial'` when the source cannot say (or its answer is anything else). */
function modeOf(source: AiSdkToolSource, name: string, agent: Agent | undefined): 'parallel' | 'serial' {
  try {
    return source.executionMode?.(agent === undefined ? { name } : { name, agent }) === 'parallel' ? 'parallel' : 'serial'
  } catch {
    return 'serial'
  }
}

function checkSchema(schema: unknown, index: number): ToolSchema {
  const where = `aiSdkTools: schemas()[${index}]`
  if (!isRecord(schema) || typeof schema['name'] !== 'string' || typeof schema['description'] !== 'string') {
    throw new ProviderInputError(`${where} is not a tool schema ({ name, description, parameters })`)
  }
  const parameters = copyJson(schema['parameters'])
  if (!isRecord(parameters)) throw new ProviderInputError(`${where} (${JSON.stringify(schema['name'])}) has no parameters object`)
  return { name: schema['name'], description: schema['description'], parameters: parameters as ToolSchema['parameters'] }
}

/**
 * A registry's tools, as `agent` sees them now, as an AI SDK `ToolSet`. Each tool's JSON Schema goes through the
 * SDK's `jsonSchema()` with no validator of its own, so whatever the model sends reaches the registry, whose
 * validator is authoritative (an invalid call comes back as an `INVALID_ARGS` result the model can correct). Each
 * `execute` runs `registry.execute` with the SDK's `toolCallId` as the call id, its `abortSignal` as the signal and
 * the agent: policy, approval, guards, timeouts and post-execute all apply. `execute` never throws: its output is
 * the frozen result, and `toModelOutput` ({@link toAiSdkModelOutput}) turns it into what the model reads, an error
 * result as `error-text` that starts with `Error (CODE): the tool call failed.`
 *
 * The SDK starts every call of a step at once; the set runs them by the registry's `executeStep` rule instead, in
 * the order the SDK invokes `execute` (the model's order): consecutive calls of `concurrencySafe` tools run together,
 * and any other call waits until every call before it has settled and holds back every call after it, so a delete
 * never races a read. The order is kept per set (one lane per `aiSdkTools` call).
 *
 * The set is a snapshot of the visible tools: build it again (it is cheap) for each `generateText` / `streamText`
 * call, or whenever the registry changes. Within one call, a tool removed or restricted since is still answered by
 * the registry, which refuses it (`UNKNOWN_TOOL`, or the denial), so a stale set never runs what policy forbids.
 *
 * @param registry - `ctx.tools`, or anything with its `schemas` and `execute`
 * @param options - the agent whose view applies
 * @throws {@link ProviderInputError} when `registry` is not a registry or its schemas are malformed.
 */
export function aiSdkTools(registry: AiSdkToolSource, options?: AiSdkToolsOptions): AiSdkToolSet {
  return readingInput('aiSdkTools', () => {
    const source = checkSource(registry)
    if (options !== undefined) assertOptionsObject(options, 'aiSdkTools')
    const agent = options?.agent
    const schemas: unknown = source.schemas(agent)
    if (!Array.isArray(schemas)) throw new ProviderInputError('aiSdkTools: schemas() did not return an array')
    const execute = source.execute
    const lane = new CallLane()
    const set: AiSdkToolSet = Object.create(null) as AiSdkToolSet
    schemas.forEach((raw: unknown, index) => {
      const schema = checkSchema(raw, index)
      if (Object.hasOwn(set, schema.name)) throw new ProviderInputError(`aiSdkTools: two tools are named ${JSON.stringify(schema.name)}`)
      const name = schema.name
      set[name] = dynamicTool({
        description: schema.description,
        inputSchema: jsonSchema(schema.parameters as JSONSchema7),
        execute: (input: unknown, call: ToolExecutionOptions): Promise<ToolExecutionResult> =>
          lane.run(modeOf(source, name, agent), () =>
            execute({
              callId: call.toolCallId,
              name,
              arguments: input,
              ...(agent !== undefined ? { agent } : {}),
              ...(call.abortSignal !== undefined ? { signal: call.abortSignal } : {}),
            }),
          ),
        toModelOutput: ({ output }) => toAiSdkModelOutput(output as ToolExecutionResult),
      }) as AiSdkTool
    })
    return set
  })
}
