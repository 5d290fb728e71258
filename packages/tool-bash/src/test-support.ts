// Helpers shared by this package's tests (not part of the build's entry, not exported).
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Agent, ToolExecutionResult } from '@dsh/tools-core'
import { createToolContext, type ToolTestContext } from '@dsh/tools-testing'
import { Context, type Fiber } from 'cordis'
import { afterAll, afterEach } from 'vitest'
import type { BashExecutor } from './bash-executor.js'
import { BashTools } from './bash-tools.js'
import type { BashToolsConfig } from './bash-tools-config.js'
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

/** What the tool tests hold: a test context with the registry, an executor and the bash tools. */
export interface LoadedTools extends AsyncDisposable {
  t: ToolTestContext
  /** Runs one call through `ctx.tools.execute`. */
  call(name: string, args: unknown, options?: { agent?: Agent; signal?: AbortSignal }): Promise<ToolExecutionResult>
  /** The text of a result (its first text block). */
  text(result: ToolExecutionResult): string
}

let callSerial = 0

/**
 * A {@link createToolContext} with {@link LocalBashExecutor} (a 300 ms kill grace unless `executor` says otherwise)
 * and {@link BashTools} loaded. Dispose it with `await using` or `t.dispose()`.
 */
export async function loadTools(
  options: { executor?: LocalBashConfig; tools?: BashToolsConfig } = {},
): Promise<LoadedTools> {
  const t = await createToolContext({
    plugins: [[LocalBashExecutor, { killGraceMs: 300, ...options.executor }], [BashTools, options.tools ?? {}]],
  })
  const execute = t.tools.execute
  return {
    t,
    call: (name, args, { agent, signal } = {}) =>
      execute({ callId: `call_${(callSerial += 1)}`, name, arguments: args, agent, signal }),
    text: resultText,
    [Symbol.asyncDispose]: () => t.dispose(),
  }
}

/** The text of a result's first block. */
export function resultText(result: ToolExecutionResult): string {
  const block = result.content[0]
  return block?.type === 'text' ? block.text : ''
}

/** A test file's private directory (`scratch`, resolved as bash's `pwd` prints it) and the executor's spill root in it. */
export interface Scratch {
  scratch: string
  spillRoot: string
}

/** Makes a {@link Scratch} for the calling test file; it is removed after the file's tests. */
export function useScratch(prefix: string): Scratch {
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), prefix)))
  const spillRoot = join(scratch, 'spill')
  mkdirSync(spillRoot)
  afterAll(() => rmSync(scratch, { recursive: true, force: true }))
  return { scratch, spillRoot }
}

/** {@link loadExecutor} working in `scratch` and spilling to its spill root; each one loaded is disposed after each test. */
export function useExecutors({ scratch, spillRoot }: Scratch): (config?: LocalBashConfig) => Promise<LoadedExecutor> {
  const loaded: LoadedExecutor[] = []
  afterEach(async () => {
    await Promise.all(loaded.splice(0).map(({ fiber }) => fiber.dispose()))
  })
  return async (config = {}) => {
    const result = await loadExecutor({ cwd: scratch, tempDir: spillRoot, ...config })
    loaded.push(result)
    return result
  }
}

/** {@link loadTools} with the executor working in `scratch`; each one loaded is disposed after each test. */
export function useTools({ scratch, spillRoot }: Scratch): (options?: Parameters<typeof loadTools>[0]) => Promise<LoadedTools> {
  const opened: LoadedTools[] = []
  afterEach(async () => {
    await Promise.all(opened.splice(0).map(({ t }) => t.dispose()))
  })
  return async (options = {}) => {
    const loaded = await loadTools({ ...options, executor: { cwd: scratch, tempDir: spillRoot, ...options.executor } })
    opened.push(loaded)
    return loaded
  }
}
