import { DshError, errorBrand, type DshErrorOptions } from '@dsh/tools-core'
import { ProblemListError } from './problem-list-error.js'
import type { SchemaProblem } from './schema-problem.js'

const toolDefinitionErrorBrand: symbol = errorBrand('ToolDefinitionError')

/**
 * `defineTool` was given a definition a model or a provider would reject later (code `INVALID_TOOL_DEFINITION`):
 * a bad name, a missing description, a bad `timeoutMs`, a missing `execute`, … `problems` lists all of them
 * (schema problems included, under `parameters` and `output.schema`).
 */
export class ToolDefinitionError extends ProblemListError {
  static override readonly brand: symbol = toolDefinitionErrorBrand

  /** True when `value` is a {@link ToolDefinitionError} from any installed copy of tools-schema. */
  static override isInstance(value: unknown): value is ToolDefinitionError {
    return DshError.hasBrand(value, toolDefinitionErrorBrand)
  }

  override readonly name: string = 'ToolDefinitionError'
  /** The tool's name as given, when it was a string. */
  readonly toolName: string | undefined

  /**
   * @param toolName - the name as given, when it was a string
   * @param problems - every problem found (at least one)
   * @param options - `cause`
   */
  constructor(toolName: string | undefined, problems: readonly SchemaProblem[], options?: DshErrorOptions) {
    const tool = toolName === undefined ? '(unnamed)' : `"${toolName}"`
    super('INVALID_TOOL_DEFINITION', `Invalid definition of tool ${tool}`, problems, options)
    this.toolName = toolName
  }
}
