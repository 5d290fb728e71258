/**
 * The seam between `run_code` and what runs the model's program. A runtime runs plain JavaScript (TypeScript is
 * stripped before it gets there) inside a boundary: nothing of the host reaches the program but the bridge, and the
 * program's only way out is the bridge. Everything crosses as JSON text.
 */

/** The limits of one run. Every one of them is enforced by the runtime, not only asked for. */
export interface CodeLimits {
  /** The program's memory, in bytes (heap, strings, typed arrays, tool results copied in). */
  readonly memoryBytes: number
  /** The CPU time the program may use, in ms (waiting for sub-calls does not count). */
  readonly cpuMs: number
  /** The whole run, waiting included, in ms. */
  readonly wallMs: number
  /** The program's stack, in bytes (deep recursion is a catchable error, never a crash). */
  readonly stackBytes: number
  /** The JSON text of one sub-call's arguments, in bytes (a bigger one is refused inside the program). */
  readonly maxArgBytes: number
  /** Captured logs in all, in bytes (past it, lines are dropped and counted). */
  readonly maxLogBytes: number
  /**
   * The JSON text of the returned value, in bytes: a bigger value ends the run failed (kind `error`, saying so) and
   * never crosses. What the model reads is bounded again, with head and tail kept, by `run_code`.
   */
  readonly maxValueBytes: number
}

/** A failure the program sees as a thrown error (`err.name`, `err.code`, `err.message`): a sub-call that failed. */
export interface CodeCallError {
  readonly name: string
  readonly code: string
  readonly message: string
}

/** What a sub-call gave back: the JSON text of the value the program receives, or the error it sees thrown. */
export type CodeCallOutcome = { readonly ok: true; readonly json: string } | { readonly ok: false; readonly error: CodeCallError }

/**
 * What the program can reach: each `await tools.<identifier>(args)` is `call(tool, argsJson)`, made with the JSON text
 * the program's own strict encoder produced. `tool` is the registry name the SDK maps the identifier to, or a name the
 * program made up (the raw bridge is hostile input: the host checks every call). `log` receives each captured
 * `console.*` line, already bounded.
 */
export interface CodeBridge {
  call(tool: string, argsJson: string): Promise<CodeCallOutcome>
  log(level: 'log' | 'info' | 'warn' | 'error' | 'debug', text: string): void
}

/** How a run ended. */
export type CodeOutcome =
  | {
      readonly ok: true
      /** The JSON text of the returned value; `undefined` when the program returned nothing. */
      readonly valueJson: string | undefined
    }
  | {
      readonly ok: false
      /**
       * `error`: the program threw (or returned something that is not JSON, or too big); `timeout`: its CPU or wall
       * time ran out; `memory`: it ran out of memory; `aborted`: the run's signal fired.
       */
      readonly kind: 'error' | 'timeout' | 'memory' | 'aborted'
      /** For the model: what went wrong, without host paths or host stacks. */
      readonly message: string
      /** The thrown error's `name` and `code`, when the program threw one that had them (a sub-call's error uncaught). */
      readonly name?: string | undefined
      readonly code?: string | undefined
    }

/** What a runtime needs to start a run. */
export interface CodeRunRequest {
  /** The program: JavaScript, the body of an async function (`return` ends it with a value; `await` works at top level). */
  readonly program: string
  /** The `tools` namespace: each identifier the program calls and the registry name it stands for (order kept). */
  readonly tools: ReadonlyArray<{ readonly identifier: string; readonly tool: string }>
  readonly bridge: CodeBridge
  readonly limits: CodeLimits
  /** Fires to stop the run (the outer call's signal, a task kill, unload): the outcome is `aborted`. */
  readonly signal: AbortSignal
}

/**
 * A runtime: starts runs, each isolated from the others and from the host. `run` never throws; a run that cannot
 * start settles failed. Once `run`'s promise settles, nothing of that run calls the bridge again.
 */
export interface CodeRuntime {
  /** A short name for results and cards (`quickjs`). */
  readonly name: string
  run(request: CodeRunRequest): Promise<CodeOutcome>
  /** Releases what the runtime holds (workers, compiled modules); runs still going end `aborted`. */
  close(): Promise<void>
}
