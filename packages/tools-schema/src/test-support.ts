// Helpers the defineTool tests share (not exported from the package).
import { createToolExecutionToken, type ToolExecution } from '@dsh/tools-core'
import { defineTool, type ToolSpec } from './define-tool.js'
import type { StandardSchemaWithJsonSchema } from './standard-schema.js'
import { ToolArgsError } from './tool-args-error.js'
import { ToolDefinitionError } from './tool-definition-error.js'

/** A tool execution of `name` with `args`, as the registry would hand it to `execute`. */
export function execution(name: string, args: unknown): ToolExecution {
  return { callId: 'call_1', name, arguments: args, token: createToolExecutionToken(), signal: new AbortController().signal }
}

/** The problems (`path: message`) of the ToolDefinitionError that `spec` gives; throws when it is accepted. */
export function definitionProblems(spec: Record<string, unknown>): string[] {
  try {
    defineTool(spec as unknown as ToolSpec<StandardSchemaWithJsonSchema>)
  } catch (error) {
    if (ToolDefinitionError.isInstance(error)) return error.problems.map((problem) => `${problem.path}: ${problem.message}`)
    throw error
  }
  throw new Error('defineTool accepted the spec')
}

/** The ToolArgsError `promise` rejects with; throws when it settles otherwise. */
export async function argsError(promise: Promise<unknown>): Promise<ToolArgsError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  if (!ToolArgsError.isInstance(error)) throw new Error(`expected a ToolArgsError, got ${String(error)}`)
  return error
}
