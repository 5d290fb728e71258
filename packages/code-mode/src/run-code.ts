import { ToolContentError, type ContentBlock, type ToolExecution } from '@dsh/tools-core'
import type { ToolRegistry } from '@dsh/tools-registry'
import { codeCall, codeResult, genericResult } from '@dsh/tools-presentation'
import { defineTool, MAX_TIMEOUT_MS } from '@dsh/tools-schema'
import { taskOf } from '@dsh/tool-tasks'
import { CODE_ERROR_CODES } from './code-error-codes.js'
import type { ResolvedCodeModeConfig } from './code-mode-config.js'
import type { CodeOutcome, CodeRuntime } from './code-runtime.js'
import type { CodeSdk } from './sdk.js'
import { stripTypes } from './strip-types.js'
import { ledger, SubCalls, type SubCallRecord } from './sub-calls.js'

/** The reserved name of the tool. */
export const RUN_CODE = 'run_code'

/** The `meta` of a `run_code` result: what ran and how it went, for cards and logs. */
export interface RunCodeMeta {
  /** The program as the model wrote it. */
  readonly code: string
  /** The model's few words on what it does. */
  readonly description?: string
  /** The runtime that ran it (`quickjs`). */
  readonly runtime: string
  /** `completed`, or how it failed: `error`, `timeout`, `memory`, `aborted`. */
  readonly status: 'completed' | 'error' | 'timeout' | 'memory' | 'aborted'
  readonly durationMs: number
  /** Every sub-call, in the order they ended. */
  readonly subCalls: readonly SubCallRecord[]
  /** The captured logs (bounded). */
  readonly logs: string
  /** The returned value as the model read it (pretty JSON, bounded). */
  readonly value: string
  /** True when the value or the logs were cut for the model. */
  readonly truncated: boolean
}

/** What the tool needs from the plugin. */
export interface RunCodeHost {
  readonly tools: ToolRegistry
  readonly config: ResolvedCodeModeConfig
  runtime(): CodeRuntime
  sdk(agent: ToolExecution['agent']): CodeSdk
}

/** The `meta` of a `run_code` result when it has the shape this tool writes (a replayed log may hold another). */
function readMeta(meta: unknown): RunCodeMeta | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined
  const candidate = meta as Partial<RunCodeMeta>
  if (typeof candidate.status !== 'string' || !Array.isArray(candidate.subCalls) || typeof candidate.logs !== 'string' || typeof candidate.value !== 'string') return undefined
  if (typeof candidate.durationMs !== 'number') return undefined
  return candidate as RunCodeMeta
}

/** Keeps the first and last halves of `text` past `max` bytes (roughly: characters), with a marker between. */
export function bounded(text: string, max: number): { text: string; cut: boolean } {
  if (Buffer.byteLength(text) <= max) return { text, cut: false }
  const half = Math.floor(max / 2)
  const head = text.slice(0, half)
  const tail = text.slice(text.length - half)
  return { text: `${head}\n[… ${Buffer.byteLength(text) - Buffer.byteLength(head) - Buffer.byteLength(tail)} bytes left out …]\n${tail}`, cut: true }
}

/** The returned value as the model reads it: pretty JSON. */
function prettyValue(valueJson: string | undefined): string {
  if (valueJson === undefined) return '(no value returned)'
  try {
    return JSON.stringify(JSON.parse(valueJson), null, 2)
  } catch {
    return valueJson
  }
}

/**
 * Builds the `run_code` tool: the model's program (TypeScript or JavaScript, the body of an async function) runs in
 * the runtime; each `await tools.x(args)` is a call through the registry's whole pipeline. The result is a status
 * line, the logs, the returned value (bounded, head and tail kept) and, always, the ledger of the sub-calls.
 */
export function createRunCodeTool(host: RunCodeHost) {
  const { config } = host
  const limits = config.limits
  return defineTool({
    name: RUN_CODE,
    description:
      'Run a program that calls tools, to do in one step what would take many tool calls. Write TypeScript or ' +
      'JavaScript: the body of an async function, so `await` works at the top and `return value` ends it with a ' +
      'value (JSON). Call tools as `await tools.<name>(args)`: the tools and their types are in the Code Mode SDK (in ' +
      'the system prompt; `await tools.$search("words")` and `await tools.$describe("name")` find and show any tool). ' +
      'Every call goes through the same checks and approvals as a direct call; a failed call throws an error with ' +
      '`name`, `code` and `message` that you can catch. `console.log` output is shown. The result lists every tool ' +
      `call made and how it ended. Limits: ${Math.round(limits.cpuMs / 1000)} s of CPU, ${Math.round(limits.memoryBytes / 1_048_576)} MiB of memory, ` +
      `${config.maxSubCalls} tool calls per run; no network, files or modules except through tools.`,
    parameters: {
      code: { type: 'string', required: true, description: 'The program: TypeScript or JavaScript, the body of an async function.' },
      description: { type: 'string', description: 'What the program does, in a few words (shown to the user).' },
    },
    execution: { background: 'optional', autoBackgroundAfterMs: config.autoBackgroundAfterMs, maxRuntimeMs: Math.min(limits.wallMs + 60_000, MAX_TIMEOUT_MS) },
    timeoutMs: Math.min(limits.wallMs + 60_000, MAX_TIMEOUT_MS),
    async execute(args, exec) {
      const started = performance.now()
      // A program that does not parse is CODE_SYNTAX (CodeSyntaxError, with line and column): nothing ran.
      const program = stripTypes(args.code)
      // Read at the start: once the call has moved to the background, exec.signal is the finished call's.
      const signal = exec.signal
      const task = taskOf(exec)
      const sdk = host.sdk(exec.agent)
      const runtime = host.runtime()
      const calls = new SubCalls(host.tools, exec, sdk, { maxSubCalls: config.maxSubCalls, maxParallelSubCalls: config.maxParallelSubCalls, maxArgBytes: limits.maxArgBytes }, signal, RUN_CODE)
      const bridge = {
        call: (tool: string, argsJson: string) => calls.call(tool, argsJson),
        log: (level: 'log' | 'info' | 'warn' | 'error' | 'debug', text: string) => {
          calls.log(level, text)
          task?.output(`${level === 'log' ? '' : `[${level}] `}${text}\n`)
        },
      }
      let outcome: CodeOutcome
      try {
        outcome = await runtime.run({ program, tools: sdk.tools, bridge, limits, signal })
      } finally {
        await calls.finish()
      }
      const logText = calls.logs.map((line) => `${line.level === 'log' ? '' : `[${line.level}] `}${line.text}`).join('\n')
      const logs = bounded(logText, config.maxOutputBytes)
      const durationMs = Math.round(performance.now() - started)
      const summary = ledger(calls.records)
      const blocks: string[] = []
      const meta = (status: RunCodeMeta['status'], value: string, truncated: boolean): RunCodeMeta => ({
        code: args.code,
        ...(args.description === undefined ? {} : { description: args.description }),
        runtime: runtime.name,
        status,
        durationMs,
        subCalls: [...calls.records],
        logs: logs.text,
        value,
        truncated,
      })
      if (outcome.ok) {
        const value = bounded(prettyValue(outcome.valueJson), config.maxOutputBytes)
        blocks.push(`The program completed in ${durationMs} ms.`)
        if (logText !== '') blocks.push(`Logs:\n${logs.text}`)
        blocks.push(`Returned:\n${value.text}`)
        blocks.push(summary)
        return { content: [{ type: 'text', text: blocks.join('\n\n') }], meta: meta('completed', value.text, value.cut || logs.cut) as never }
      }
      const thrown = outcome.code === undefined ? '' : ` (${outcome.name ?? 'Error'} ${outcome.code})`
      blocks.push(`The program failed (${outcome.kind})${thrown} after ${durationMs} ms: ${outcome.message}`)
      if (logText !== '') blocks.push(`Logs:\n${logs.text}`)
      blocks.push(summary)
      const content: ContentBlock[] = [{ type: 'text', text: blocks.join('\n\n') }]
      throw new ToolContentError(CODE_ERROR_CODES.RUN_FAILED, `The program failed (${outcome.kind}): ${outcome.message}`, { content })
    },
    presentCall: (args) =>
      codeCall({
        title: typeof args.description === 'string' && args.description !== '' ? args.description : 'Run a program',
        language: 'typescript',
        code: String(args.code ?? ''),
      }),
    presentResult(_args, result) {
      const meta = readMeta(result.meta)
      if (result.isError || meta === undefined) return genericResult()
      return codeResult({ status: meta.status, durationMs: meta.durationMs, logs: meta.logs === '' ? undefined : meta.logs, value: meta.value, subCalls: meta.subCalls })
    },
  })
}
