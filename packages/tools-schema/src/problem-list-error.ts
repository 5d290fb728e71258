import { DshError, type DshErrorOptions, type ErrorCode } from '@dsh/tools-core'
import { countNoun, formatSchemaProblems, type SchemaProblem } from './schema-problem.js'

/**
 * The shared body of the errors that report definition problems (`JsonSchemaError`, `OutputSchemaError`,
 * `ToolDefinitionError`): the message lists them, one `- path: message` line each. Not exported: each public
 * subclass carries its own brand.
 */
export abstract class ProblemListError extends DshError {
  /** Every problem found, in the order the definition was read. */
  readonly problems: readonly SchemaProblem[]

  constructor(code: ErrorCode, heading: string, problems: readonly SchemaProblem[], options?: DshErrorOptions) {
    super(code, `${heading} (${countNoun(problems.length, 'problem')}):\n${formatSchemaProblems(problems)}`, options)
    this.problems = Object.freeze([...problems])
  }
}
