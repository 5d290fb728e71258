import type { ContentBlock, ToolExecutionResult } from '@dsh/tools-core'
import type { ParsedToolCall, StepContextLike } from '@dsh/tools-providers'
import type { Context } from 'cordis'
import { startReplay } from './replay-server.js'
import { task, workspaceTools } from './workspace.js'

/** What every example loop gets: the tools, the task, the signal that Ctrl-C aborts, the step limit. */
export interface LoopFrame {
  readonly ctx: Context
  readonly task: string
  readonly signal: AbortSignal
  readonly maxSteps: number
}

/** What a provider loop gets besides the frame: the key and base URL to use. */
export interface LoopSetup extends LoopFrame {
  readonly apiKey: string
  /** The replay server's URL when offline; `undefined` to use the provider's real API. */
  readonly baseURL: string | undefined
}

/**
 * Runs one example: the real API when `keyVariable` is set, else the replay server with the recorded `replies`.
 * Ctrl-C aborts the signal (the running step answers every call, `ABORTED…`); everything is closed at the end.
 */
export async function runExample(keyVariable: string, replies: readonly unknown[], loop: (setup: LoopSetup) => Promise<void>): Promise<void> {
  const key = process.env[keyVariable]
  const replay = key === undefined || key === '' ? await startReplay(replies, replayDelayMs()) : undefined
  try {
    await runLoop(
      replay === undefined ? `using the real API (${keyVariable} is set)` : `offline: replaying recorded responses (set ${keyVariable} to use the real API)`,
      (frame) => loop({ ...frame, apiKey: key ?? 'offline-key', baseURL: replay?.url }),
    )
  } finally {
    await replay?.close()
  }
}

/** `REPLAY_DELAY_MS`, offline only: a slow model, to try Ctrl-C. */
export function replayDelayMs(): number {
  const delayMs = Number(process.env['REPLAY_DELAY_MS'] ?? 0)
  return Number.isFinite(delayMs) ? delayMs : 0
}

/**
 * The frame of every example: prints `header` and the user's task, runs `loop` with the workspace's tools and a
 * signal that Ctrl-C aborts, reports a failure (exit code 1) or the cancellation (130), and disposes the Context.
 */
export async function runLoop(header: string, loop: (frame: LoopFrame) => Promise<void>): Promise<void> {
  console.log(header)
  const controller = new AbortController()
  const onSigint = () => controller.abort(new Error('interrupted (Ctrl-C)'))
  process.once('SIGINT', onSigint)
  const ctx = await workspaceTools()
  try {
    console.log(`user: ${task}`)
    await loop({ ctx, task, signal: controller.signal, maxSteps: 8 })
  } catch (error) {
    // Ctrl-C during a model call rejects it (the SDKs reject with their abort error); during a step, the step
    // still answers every call and the next model call is the one that rejects.
    console.error(controller.signal.aborted ? 'cancelled (Ctrl-C)' : `failed: ${error instanceof Error ? error.message : String(error)}`)
    process.exitCode = controller.signal.aborted ? 130 : 1
  } finally {
    process.off('SIGINT', onSigint)
    await ctx.root.fiber.dispose()
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
  calls.forEach((call, index) => printCall(call.name, call.ok ? call.input.arguments : undefined, results[index]))
  for (const entry of context) printContext('after the results', entry)
}

/** Prints one call: `name {arguments} -> ok: text` or `-> error CODE: text` (`(malformed)` without arguments). */
export function printCall(name: string, args: unknown, result: ToolExecutionResult | undefined): void {
  const outcome = result?.isError === true ? `error ${result.error?.code ?? ''}` : 'ok'
  const text = blocksAsText(result?.content ?? [])
  console.log(`  ${name} ${args === undefined ? '(malformed)' : JSON.stringify(args)} -> ${outcome}: ${text.replaceAll('\n', ' ').slice(0, 100)}`)
}

/** Prints the context a post-execute listener attached, and where the loop puts it (`where`). */
export function printContext(where: string, entry: StepContextLike): void {
  console.log(`  + context ${where}${entry.source === undefined ? '' : ` (${entry.source})`}: ${blocksAsText(entry.content)}`)
}

function blocksAsText(blocks: readonly ContentBlock[]): string {
  return blocks.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join(' ')
}
