import type { Agent } from '@dsh/tools-core'
import { checkCordisHost, contributeToSystemPrompt } from '@dsh/tools-registry'
import { Service, type Context } from 'cordis'
import { resolveCodeModeConfig, type CodeModeConfig, type ResolvedCodeModeConfig } from './code-mode-config.js'
import type { CodeRuntime } from './code-runtime.js'
import { createRunCodeTool, RUN_CODE } from './run-code.js'
import { QuickJsRuntime } from './runtime/quickjs-runtime.js'
import { renderSdk, type CodeSdk, type SdkSource } from './sdk.js'

declare module 'cordis' {
  interface Context {
    /** Code Mode (`@dsh/code-mode`). */
    codeMode: CodeMode
  }
}

/**
 * How an agent calls tools: `native` (directly; `run_code` is hidden), `both` (directly, or from a `run_code`
 * program; the default) or `code` (only `run_code`, and the task tools, are the model's: a direct call to another tool
 * is `UNKNOWN_TOOL` with a hint to call it from a program, before any policy runs; programs reach every tool).
 */
export type CodeModeSetting = 'native' | 'both' | 'code'

const PLUGIN = '@dsh/code-mode'
/** What stays callable directly in `code` mode: the program tool and the task layer's tools (a run may be a task). */
const CODE_MODE_DIRECT = [RUN_CODE, 'task_output', 'task_kill', 'task_list']

/**
 * Code Mode: registers `run_code`, renders the SDK programs are written against for each agent (into the system
 * prompt when a `systemPrompt` service is there, and through {@link CodeMode.sdk}), and sets an agent's mode. Load it
 * with `ctx.plugin(CodeMode, config)`; it is `ctx.codeMode`. Unloading it removes the tool, the modes it set and the
 * prompt section, and closes the runtime it made.
 */
export class CodeMode extends Service {
  static readonly inject = ['tools']

  /** The validated configuration in effect. */
  readonly config: ResolvedCodeModeConfig
  private runtimeInstance: CodeRuntime | undefined
  private readonly modes = new WeakMap<Agent, () => void>()
  /** Every mode in force, to undo on unload (whichever fiber the registry counts the restriction to). */
  private readonly resets = new Set<() => void>()
  /** The plugin's own registry handle: modes are effects of this fiber, so unloading the plugin removes them. */
  private readonly registry: Context["tools"]

  /**
   * @param ctx - the plugin's context (cordis passes it)
   * @param config - validated here; a bad one throws `CodeModeConfigError` and the load fails
   */
  constructor(ctx: Context, config: CodeModeConfig = {}) {
    checkCordisHost(ctx, PLUGIN, { service: 'codeMode' })
    const resolved = resolveCodeModeConfig(config)
    super(ctx, 'codeMode')
    this.config = resolved
    const tools = ctx.tools
    this.registry = tools
    tools.register(createRunCodeTool({ tools, config: resolved, runtime: () => this.runtime(), sdk: (agent) => this.sdk(agent) }))
    contributeToSystemPrompt(ctx, 'the Code Mode SDK', (service) =>
      service.section(({ agent }) => {
        if (tools.get(RUN_CODE, agent) === undefined) return undefined
        return { id: 'code-mode-sdk', title: 'Code Mode SDK', text: `Programs you pass to run_code can call these tools:\n\n\`\`\`ts\n${this.sdk(agent).text}\`\`\`` }
      }),
    )
    ctx.effect(() => () => this.close(), 'code mode runtime')
  }

  /**
   * The SDK a program of `agent` is written against: every tool the agent's programs can call (its nested view,
   * without `run_code`), as TypeScript declarations. Rendered from the registry as it is now.
   */
  sdk(agent?: Agent): CodeSdk {
    const tools = this.registry
    const sources: SdkSource[] = []
    for (const schema of tools.schemas(agent, { nested: true })) {
      if (schema.name === RUN_CODE) continue
      sources.push({ schema, outputSchema: tools.outputSchema(schema.name, agent, { nested: true }) })
    }
    return renderSdk(sources, { compactAfter: this.config.compactAfter })
  }

  /**
   * Sets how `agent` calls tools (see {@link CodeModeSetting}); replaces the mode set before for it. Returns a function
   * that puts the agent back to `both`. The mode belongs to the plugin: unloading it puts every agent back as it was.
   */
  setMode(agent: Agent, mode: CodeModeSetting): () => void {
    this.modes.get(agent)?.()
    this.modes.delete(agent)
    if (mode === 'both') return () => {}
    const scope = this.registry.scope(agent)
    const undo =
      mode === 'code'
        ? scope.restrict({
            allow: CODE_MODE_DIRECT,
            appliesTo: 'direct',
            hint: `In this session tools are called from a program: pass run_code a program such as \`return await tools.<tool>(args)\`.`,
          })
        : mode === 'native'
          ? scope.restrict({ deny: [RUN_CODE] })
          : (() => {
              throw new TypeError(`A Code Mode setting is 'native', 'both' or 'code', got ${JSON.stringify(mode)}`)
            })()
    const reset = (): void => {
      if (this.modes.get(agent) === reset) this.modes.delete(agent)
      this.resets.delete(reset)
      undo()
    }
    this.modes.set(agent, reset)
    this.resets.add(reset)
    return reset
  }

  /** The runtime: the configured one, or a `QuickJsRuntime` made at the first run. */
  private runtime(): CodeRuntime {
    return (this.runtimeInstance ??= this.config.runtime ?? new QuickJsRuntime())
  }

  private async close(): Promise<void> {
    for (const reset of this.resets) reset()
    const made = this.config.runtime === undefined ? this.runtimeInstance : undefined
    this.runtimeInstance = undefined
    await made?.close()
  }
}
