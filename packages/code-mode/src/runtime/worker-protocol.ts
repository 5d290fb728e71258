import type { CodeCallOutcome, CodeLimits, CodeOutcome } from '../code-runtime.js'

declare const compiledModule: unique symbol

/**
 * A compiled `WebAssembly.Module` (the project's `lib` has no WebAssembly types): the host compiles QuickJS once and
 * every worker instantiates it, which structured clone shares rather than copies.
 */
export type CompiledWasm = object & { readonly [compiledModule]: true }

/** What the worker needs at start: the compiled QuickJS module, compiled once by the host and shared. */
export interface WorkerData {
  readonly wasm: CompiledWasm
}

/** A console level the program can log at. */
export type LogLevel = 'log' | 'info' | 'warn' | 'error' | 'debug'

/** Messages from the host to the worker. */
export type HostToWorker =
  | {
      readonly type: 'run'
      readonly runId: number
      readonly program: string
      readonly tools: ReadonlyArray<{ readonly identifier: string; readonly tool: string }>
      readonly limits: CodeLimits
    }
  | { readonly type: 'settle'; readonly runId: number; readonly callId: number; readonly outcome: CodeCallOutcome }

/** Messages from the worker to the host. */
export type WorkerToHost =
  | { readonly type: 'ready' }
  | { readonly type: 'call'; readonly runId: number; readonly callId: number; readonly tool: string; readonly argsJson: string }
  | { readonly type: 'log'; readonly runId: number; readonly level: LogLevel; readonly text: string }
  | {
      readonly type: 'done'
      readonly runId: number
      readonly outcome: CodeOutcome
      /** False when the worker saw something it cannot vouch for (a trap out of the engine): the host ends it. */
      readonly reusable: boolean
    }
