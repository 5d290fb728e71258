import { access, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { TimeoutPolicy } from '@dsh/timeout-policy'
import { BashTools, LocalBashExecutor } from '@dsh/tool-bash'
import { SandboxedBashExecutor } from '@dsh/tool-bash-sandbox'
import { ContainerBashExecutor } from '@dsh/tool-bash-container'
import { CodeMode } from '@dsh/code-mode'
import { TaskService } from '@dsh/tool-tasks'
import type { Agent } from '@dsh/tools-core'
import { ToolTelemetry } from '@dsh/tools-otel'
import { ToolRegistry } from '@dsh/tools-registry'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { runScriptedSession, type ScriptedSession } from '@dsh/tools-testing'
import { Context, Logger, type Exporter } from 'cordis'
import { DemoApproval } from './demo-approval.js'
import { createDemoModel } from './demo-model.js'
import * as demoPolicy from './demo-policy.js'
import { demoSteps, FAKE_ENV, INITIAL_NOTES, SERVE_SCRIPT, SERVER_READY_FILE } from './demo-script.js'
import * as echoTool from './echo-tool.js'
import * as indexArchiveTool from './index-archive-tool.js'
import { createJsonReporter, createTextReporter } from './reporter.js'
import * as slowSearchTool from './slow-search-tool.js'
import { formatSpanTree } from './trace-tree.js'
import * as wordCountTool from './word-count-tool.js'
import * as writeFileTool from './write-file-tool.js'

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** Write the session's events as JSON lines instead of cards. */
  readonly json?: boolean | undefined
  /** ANSI colours in the cards (text mode only). Default: false. */
  readonly color?: boolean | undefined
  /** Receives each line of the transcript (stdout in the CLI). */
  readonly write: (line: string) => void
  /** Receives warnings and problems (stderr in the CLI). */
  readonly warn: (line: string) => void
  /**
   * Run the model's commands in the bubblewrap sandbox (`SandboxedBashExecutor` of `@dsh/tool-bash-sandbox`, Linux)
   * instead of the local executor. The run fails with the sandbox's reason and fix when it cannot start. Default: false.
   */
  readonly sandbox?: boolean | undefined
  /**
   * Run the model's commands in a session container (`ContainerBashExecutor` of `@dsh/tool-bash-container`) on the
   * engine at `socketPath` (podman or Docker), from `image`; the workspace is bind-mounted at its own path. The run
   * fails with the engine's reason and fix when it cannot start. Default: the local executor.
   */
  readonly container?: { readonly socketPath: string; readonly image: string } | undefined
  /**
   * Trace every call with `@dsh/tools-otel` (an OpenTelemetry SDK with an in-memory exporter) and print the span tree
   * of the session after it. Default: false.
   */
  readonly trace?: boolean | undefined
}

/** How a demo run ended. */
export interface DemoOutcome {
  /** 0 when the script played to its end and every call ended as scripted, else 1. */
  readonly exitCode: 0 | 1
  /** The session, when it ran. */
  readonly session: ScriptedSession | undefined
  /** Where the session did not go as scripted. */
  readonly problems: readonly string[]
}

const plainLogs: Exporter = { colors: false, export() {} }

/** The tools the model must be shown; the demo refuses to start without them. */
export const DEMO_TOOLS = ['echo', 'word_count', 'write_file', 'search_archive', 'bash', 'bash_output', 'bash_kill', 'index_archive', 'task_output', 'run_code'] as const

/** Resolves once `path` exists, or after `limitMs` (the script then reads whatever the server has printed). */
async function waitForFile(path: string, signal: AbortSignal, limitMs = 10_000): Promise<void> {
  for (const started = Date.now(); Date.now() - started < limitMs; ) {
    try {
      await access(path)
      // The line the command printed before it created the file is in the pipe by now; one more timer turn lets
      // the event loop's poll phase hand it to the executor before the model reads it.
      await sleep(20, undefined, { signal })
      return
    } catch (error) {
      if (signal.aborted) throw error
      await sleep(10, undefined, { signal })
    }
  }
}

/**
 * Runs the demo session. Sets up a workspace (a temporary directory with `notes.md`, a `.env` holding a fake
 * credential and a dev server script `serve.sh`) and a cordis app with the registry, the timeout policy, the bash
 * executor and tools, the demo's own tools, its policy and its approval service; then lets the scripted model work
 * through the session. Everything is unloaded and the workspace removed at the end, whatever happens.
 */
export async function runDemo(options: DemoOptions): Promise<DemoOutcome> {
  const workspace = await mkdtemp(join(tmpdir(), 'echo-agent-'))
  const ctx = new Context()
  const stop = new AbortController()
  try {
    await writeFile(join(workspace, 'notes.md'), INITIAL_NOTES)
    await writeFile(join(workspace, '.env'), FAKE_ENV)
    await writeFile(join(workspace, 'serve.sh'), SERVE_SCRIPT)
    // cordis prints nothing by default; the demo shows warnings (a failing listener, say) on the error stream.
    ctx.logger.exporter({
      colors: false,
      export(message) {
        if (message.type === 'error' || message.type === 'warn') options.warn(`[${message.name}] ${Logger.format(plainLogs, message)}`)
      },
    })

    // The harness: the registry, the policies around it, the tools. The order matters only for listeners of one
    // event: they run in registration order.
    await ctx.plugin(ToolRegistry)
    const tools = ctx.tools // held once: each ctx.tools lookup costs cordis a few microseconds
    const agent: Agent = {
      id: 'echo-agent',
      cwd: workspace,
      inject: (content, injectOptions) => reporter.notice(content, injectOptions),
    }
    const reporter =
      options.json === true
        ? createJsonReporter(options.write)
        : createTextReporter({ write: options.write, color: options.color === true, lookup: (name) => tools.get(name, agent) })

    await ctx.plugin(TimeoutPolicy, { graceMs: 1_000 })
    // The task layer: a tool that declares execution.background may run in the background (task_output, task_kill,
    // task_list); its wrapper is the outermost.
    await ctx.plugin(TaskService)
    // The executor seam (ctx.bash) and the model-facing bash, bash_output and bash_kill tools over it.
    const executorConfig = { cwd: workspace, defaultTimeoutMs: 10_000, killGraceMs: 500 }
    if (options.container !== undefined) {
      await ctx.plugin(ContainerBashExecutor, { ...executorConfig, engine: { socketPath: options.container.socketPath }, image: options.container.image })
    } else if (options.sandbox === true) await ctx.plugin(SandboxedBashExecutor, executorConfig)
    else await ctx.plugin(LocalBashExecutor, executorConfig)
    await ctx.plugin(BashTools)
    await ctx.plugin(echoTool)
    await ctx.plugin(wordCountTool)
    await ctx.plugin(writeFileTool, { root: workspace })
    await ctx.plugin(slowSearchTool, { timeoutMs: 250 })
    await ctx.plugin(indexArchiveTool)
    await ctx.plugin(demoPolicy)
    await ctx.plugin(DemoApproval, { onDecision: (request, outcome) => reporter.approval(request, outcome) })
    // Code Mode: run_code runs a program whose tool calls go through this same pipeline; each one's result is shown
    // nested under the program's card (observers see a sub-call with exec.parent, before the outer result).
    await ctx.plugin(CodeMode)
    tools.on('tools/result', (exec, result) => {
      if (exec.parent !== undefined) reporter.subCall(exec, result)
    })
    // --trace: every call as OpenTelemetry spans (loaded last, so its body span holds the body alone).
    const spans = new InMemorySpanExporter()
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] })
    if (options.trace === true) await ctx.plugin(ToolTelemetry, { tracerProvider })

    const visible = tools.schemas(agent).map((schema) => schema.name)
    const missing = DEMO_TOOLS.filter((name) => !visible.includes(name))
    if (missing.length > 0) {
      const problem = `the tools ${missing.join(', ')} are not registered (did a plugin fail to load?)`
      options.warn(problem)
      return { exitCode: 1, session: undefined, problems: [problem] }
    }

    reporter.start({ workspace, tools: visible })
    const { model, check } = createDemoModel(
      demoSteps({ serverReady: () => waitForFile(join(workspace, SERVER_READY_FILE), stop.signal) }),
      (step, say) => reporter.turn(step, say),
    )
    const session = await runScriptedSession(tools, model, { agent, onEvent: (event) => reporter.event(event) })
    reporter.finish(session)
    if (options.trace === true) {
      options.write('')
      options.write('Span tree of the session (@dsh/tools-otel):')
      for (const line of formatSpanTree(spans.getFinishedSpans())) options.write(`  ${line}`)
      await tracerProvider.shutdown()
    }
    const problems = check(session)
    for (const problem of problems) options.warn(`not as scripted: ${problem}`)
    return { exitCode: problems.length === 0 ? 0 : 1, session, problems }
  } finally {
    stop.abort()
    // Unloading the root fiber disposes every plugin: background commands are stopped, spill files removed.
    await ctx.root.fiber.dispose()
    await rm(workspace, { recursive: true, force: true })
  }
}
