import type { Agent, SystemPromptAssembly, SystemPromptSection, ToolDefinition } from '@dsh/tools-core'
import { contributeToSystemPrompt } from '@dsh/tools-registry'
import type { Context } from 'cordis'
import { describeDuration } from './background-tasks.js'
import type { BashExecutorLimits } from './bash-executor.js'
import type { ResolvedBashToolsConfig } from './bash-tools-config.js'

/** The `id` of the guidance section the bash tools contribute to the system prompt. */
export const BASH_GUIDANCE_ID = 'tool-bash'

/** What {@link bashGuidance} writes about: the settings the model should know. */
export interface BashGuidanceOptions {
  /** The foreground timeout a command gets unless it asks for another, in ms (the executor's `defaultTimeoutMs`). */
  readonly defaultTimeoutMs: number
  /** How many background tasks one agent may have running at once (`maxBackgroundTasks`). */
  readonly maxBackgroundTasks: number
  /**
   * Whether the agent can run background tasks: it can call `bash_output` and `bash_kill`. Default: true. When
   * false, the section only says how exit codes are reported.
   */
  readonly background?: boolean | undefined
  /** Whether the agent is told when a background task ends on its own (`agent.inject`). Default: false. */
  readonly toldOnCompletion?: boolean | undefined
}

/**
 * The bash tools' system-prompt guidance: that a nonzero exit code is not a failed call, and when to use a
 * background task. The {@link BashTools} plugin contributes it, per assembly, to a `systemPrompt` service when one
 * is present; a harness that builds its prompt by hand may include it itself.
 */
export function bashGuidance(options: BashGuidanceOptions): SystemPromptSection {
  const lines = [
    '- A nonzero exit code is not a failed tool call: the output ends with `[exit code: N]` (or ' +
      '`[killed by signal: S]`, `[timed out after Nms]`), and no marker means exit code 0. Read the output and ' +
      'decide; a bash call is an error only when the command could not run.',
  ]
  if (options.background !== false) {
    lines.push(
      '- Set `run_in_background` for servers, watchers and commands that may run longer than ' +
        `${describeDuration(options.defaultTimeoutMs)}: you get a task id at once; read new output with \`bash_output\` ` +
        `and stop the task with \`bash_kill\` when you no longer need it${options.toldOnCompletion === true ? ' (you are told when it ends)' : ''}. ` +
        `At most ${options.maxBackgroundTasks} run at once. Run a command whose result you need next in the foreground.`,
    )
  }
  return { id: BASH_GUIDANCE_ID, title: 'Running commands', text: lines.join('\n') }
}

/** The registry lookups the guidance needs (`ctx.tools.get`). */
interface ToolLookup {
  get(name: string, agent?: Agent): ToolDefinition | undefined
}

/** What {@link contributeBashGuidance} needs from the plugin that registered the tools. */
export interface BashGuidanceContext {
  readonly tools: ToolLookup
  /** The registered `bash`, `bash_output` and `bash_kill` definitions. */
  readonly definitions: readonly [ToolDefinition, ToolDefinition, ToolDefinition]
  readonly limits: BashExecutorLimits
  readonly config: ResolvedBashToolsConfig
}

/**
 * Contributes {@link bashGuidance} to `ctx.systemPrompt` while it is present (an effect of `ctx`'s fiber). Per
 * assembly: nothing for an agent that cannot call these tools (restricted, or with a `bash` of its own), and no
 * background advice for one that cannot call `bash_output` and `bash_kill`.
 */
export function contributeBashGuidance(ctx: Context, context: BashGuidanceContext): void {
  const { tools, definitions, limits, config } = context
  const [bash, bashOutput, bashKill] = definitions
  const provider = (assembly: SystemPromptAssembly): SystemPromptSection | undefined => {
    const agent = assembly?.agent
    if (tools.get(bash.name, agent) !== bash) return undefined
    return bashGuidance({
      defaultTimeoutMs: limits.defaultTimeoutMs,
      maxBackgroundTasks: config.maxBackgroundTasks,
      background: tools.get(bashOutput.name, agent) === bashOutput && tools.get(bashKill.name, agent) === bashKill,
      toldOnCompletion: config.notifyOnCompletion && typeof agent?.inject === 'function',
    })
  }
  contributeToSystemPrompt(ctx, 'the bash guidance', (service) => service.section(provider))
}
