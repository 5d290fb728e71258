// How a server's task-capable tool is registered for the task layer (`@dsh/tool-tasks`): its
// `ToolDefinition.execution`, and the `run_in_background` parameter a `background: 'optional'` tool offers the model.
import type { JsonObject, ToolArgumentsCheck, ToolExecutionPolicy } from '@dsh/tools-core'
import { RUN_IN_BACKGROUND, ToolArgsError, type Violation } from '@dsh/tools-schema'
import type { PlannedTool } from './discovery.js'
import type { ResolvedMcpServerConfig } from './server-config.js'
import { isRecord } from './is-record.js'

/** The registration of a task-capable tool: its execution policy, and whether it takes `run_in_background`. */
export interface TaskRegistration {
  readonly execution: ToolExecutionPolicy
  /** True when `run_in_background` was added to its parameters (and is taken out of the arguments sent to the server). */
  readonly runInBackground: boolean
}

const runInBackgroundSchema: JsonObject = Object.freeze({
  type: 'boolean',
  description:
    'Run this call in the background: the result is a task id at once, and task_output reads the output and the final result later. Use it for work that takes long.',
}) as JsonObject

/**
 * The task registration of `plan` under `config`, or `undefined` for a tool whose calls are plain calls. A task-only
 * tool (`taskSupport: 'required'`) gets `config.tasks.taskOnly` (`'optional'` by default), a task-capable one
 * `'optional'`; `'optional'` comes with the foreground budget `config.tasks.foregroundMs` and a `run_in_background`
 * parameter, unless the server's own schema already has a property of that name: then the tool is registered without
 * an execution policy (its calls stay in the foreground, where a task-only tool's call waits for its MCP task).
 */
export function taskRegistration(plan: PlannedTool, config: ResolvedMcpServerConfig): TaskRegistration | undefined {
  if (plan.taskSupport === undefined) return undefined
  const background = plan.taskSupport === 'required' ? config.tasks.taskOnly : 'optional'
  if (background === 'required') return { execution: Object.freeze({ background }), runInBackground: false }
  const properties = plan.parameters?.properties
  if (!isRecord(properties) || Object.hasOwn(properties, RUN_IN_BACKGROUND)) return undefined
  return { execution: Object.freeze({ background, autoBackgroundAfterMs: config.tasks.foregroundMs }), runInBackground: true }
}

/** `parameters` with the `run_in_background` boolean property added (what the model is sent). */
export function withRunInBackground(parameters: JsonObject): JsonObject {
  return { ...parameters, properties: { ...(parameters.properties as JsonObject), [RUN_IN_BACKGROUND]: runInBackgroundSchema } }
}

/**
 * A validation hook that accepts `run_in_background` (a boolean) and checks the other arguments with `check` (the
 * server's schema, which does not know the parameter).
 */
export function acceptingRunInBackground(check: ((args: unknown) => ToolArgumentsCheck) | undefined, toolName: string): (args: unknown) => ToolArgumentsCheck {
  return (args) => {
    if (!isRecord(args) || !Object.hasOwn(args, RUN_IN_BACKGROUND)) return check === undefined ? { ok: true } : check(args)
    const flag = args[RUN_IN_BACKGROUND]
    if (typeof flag !== 'boolean') {
      const violation: Violation = { path: RUN_IN_BACKGROUND, segments: [RUN_IN_BACKGROUND], keyword: 'type', message: `must be a boolean, got ${flag === null ? 'null' : typeof flag}` }
      return { ok: false, message: new ToolArgsError({ toolName, violations: [violation], omitted: 0 }).message }
    }
    return check === undefined ? { ok: true } : check(withoutRunInBackground(args))
  }
}

/** The arguments without `run_in_background` (what the server is sent). */
export function withoutRunInBackground(args: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const rest: Record<string, unknown> = {}
  for (const key of Object.keys(args)) if (key !== RUN_IN_BACKGROUND) rest[key] = args[key]
  return rest
}
