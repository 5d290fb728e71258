// Helpers shared by this package's tests (not part of the build's entry, not exported).
import { Context, type Fiber } from 'cordis'
import type { BashExecutor } from './bash-executor.js'
import type { LocalBashConfig } from './local-bash-config.js'
import { LocalBashExecutor } from './local-bash-executor.js'

/** Polls `predicate` (every 5 ms) until it holds; throws after `limitMs` so a broken test fails instead of hanging. */
export async function waitFor(predicate: () => boolean, limitMs = 10_000): Promise<void> {
  const deadline = Date.now() + limitMs
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${limitMs} ms: ${predicate.toString()}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

/** A real cordis Context with the local executor loaded. */
export interface LoadedExecutor {
  ctx: Context
  fiber: Fiber
  bash: BashExecutor
  /** The service object itself (for the local-only accessors). */
  local: LocalBashExecutor
}

/** Loads {@link LocalBashExecutor} with `config` into a fresh Context and waits until it is active. */
export async function loadExecutor(config: LocalBashConfig = {}): Promise<LoadedExecutor> {
  const ctx = new Context()
  const fiber = await ctx.plugin(LocalBashExecutor, { killGraceMs: 300, ...config })
  const bash = ctx.bash
  return { ctx, fiber, bash, local: bash as LocalBashExecutor }
}

/** Parses the numbers a command printed, one per line. */
export function pidsIn(text: string): number[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^\d+$/.test(line))
    .map(Number)
}
