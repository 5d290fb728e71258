import type { ToolExecutionResult } from '@dsh/tools-core'
import type { ParsedToolCall, StepContextLike } from '@dsh/tools-providers'
import type { Context } from 'cordis'
import { startReplay } from './replay-server.js'
import { task, workspaceTools } from './workspace.js'

/** What an example loop gets: the tools, the key and base URL to use, the signal that Ctrl-C aborts. */
export interface LoopSetup {
  readonly ctx: Context
  readonly task: string
  readonly apiKey: string
  /** The replay server's URL when offline; `undefined` to use the provider's real API. */
  readonly baseURL: string | undefined
  readonly signal: AbortSignal
  readonly maxSteps: number
}

/**
 * Runs one example: the real API when `keyVariable` is set, else the replay server with the recorded `replies`.
 * Ctrl-C aborts the signal (the running step answers every call, `ABORTED…`); everything is closed at the end.
 */
export async function runExample(keyVariable: string, replies: readonly unknown[], loop: (setup: LoopSetup) => Promise<void>): Promise<void> {
  const key = process.env[keyVariable]
  const delayMs = Number(process.env['REPLAY_DELAY_MS'] ?? 0) // offline only: a slow model, to try Ctrl-C
  const replay = key === undefined || key === '' ? await startReplay(replies, Number.isFinite(delayMs) ? delayMs : 0) : undefined
  console.log(replay === undefined ? `using the real API (${keyVariable} is set)` : `offline: replaying recorded responses (set ${keyVariable} to use the real API)`)
  const controller = new AbortController()
  const onSigint = () => controller.abort(new Error('interrupted (Ctrl-C)'))
  process.once('SIGINT', onSigint)
  const ctx = await workspaceTools()
  try {
    console.log(`user: ${task}`)
    await loop({ ctx, task, apiKey: key ?? 'offline-key', baseURL: replay?.url, signal: controller.signal, maxSteps: 8 })
  } catch (error) {
    // Ctrl-C during a model call rejects it (the SDKs reject with their abort error); during a step, the step
    // still answers every call and the next model call is the one that rejects.
    console.error(controller.signal.aborted ? 'cancelled (Ctrl-C)' : `failed: ${error instanceof Error ? error.message : String(error)}`)
    process.exitCode = controller.signal.aborted ? 130 : 1
  } finally {
    process.off('SIGINT', onSigint)
    await ctx.root.fiber.dispose()
    await replay?.close()
  }
}

/** Prints one step: each call with its arguments and how it ended, then the context sent after the results. */
export function printStep(
  step: number,
  calls: readonly ParsedToolCall[],
  results: readonly ToolExecutionResult[],
  context: readonly StepContextLike[],
): void {
  console.log(`step ${step}: ${calls.length} tool call${calls.length === 1 ? '' : 's'}`)
  calls.forEach((call, index) => {
    const result = results[index]
    const text = (result?.content ?? []).map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join(' ')
    const outcome = result?.isError === true ? `error ${result.error?.code ?? ''}` : 'ok'
    const args = call.ok ? JSON.stringify(call.input.arguments) : '(malformed)'
    console.log(`  ${call.name} ${args} -> ${outcome}: ${text.replaceAll('\n', ' ').slice(0, 100)}`)
  })
  for (const entry of context) {
    const text = entry.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join(' ')
    console.log(`  + context after the results${entry.source === undefined ? '' : ` (${entry.source})`}: ${text}`)
  }
}
