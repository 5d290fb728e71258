import { ByteWindow, type BashResult, type BashSpawnError, type BashTask, type BashTaskOutcome, type BashTaskOutput, type BashTaskStatus, type CapturedOutput } from '@dsh/tool-bash'

interface Segment {
  window: ByteWindow
}

/** A command running in the session container, as the host sees it: what the agent reported, windowed again here. */
export class RemoteTask implements BashTask {
  pid: number | null = null
  startedAt = Date.now()
  status: BashTaskStatus = 'running'
  outcome: BashTaskOutcome | undefined
  readonly done: Promise<BashTaskOutcome>
  private settle!: (outcome: BashTaskOutcome) => void
  private readonly doneListeners = new Set<(outcome: BashTaskOutcome) => void>()
  private readonly outputListeners = new Set<(stream: 'stdout' | 'stderr', chunk: Uint8Array) => void>()
  private readonly segments: Record<'stdout' | 'stderr', Segment>

  constructor(
    readonly command: string,
    readonly cwd: string,
    readonly timeoutMs: number,
    private readonly windowBytes: number,
    private readonly stopper: () => void,
    private readonly log: (message: string, error?: unknown) => void,
  ) {
    this.done = new Promise((resolve) => (this.settle = resolve))
    this.segments = { stdout: { window: new ByteWindow(windowBytes) }, stderr: { window: new ByteWindow(windowBytes) } }
  }

  /** Output the agent forwarded (background commands). */
  output(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    this.segments[stream].window.push(chunk)
    for (const listener of this.outputListeners) {
      try {
        listener(stream, chunk)
      } catch (error) {
        this.log('an output listener of a container command failed', error)
      }
    }
  }

  finish(outcome: BashTaskOutcome): void {
    if (this.outcome !== undefined) return
    this.outcome = outcome
    this.status = outcome.status
    this.settle(outcome)
    for (const listener of this.doneListeners) this.callDone(listener, outcome)
    this.doneListeners.clear()
  }

  completed(result: BashResult): void {
    this.finish(Object.freeze({ status: 'completed', result }))
  }

  failed(error: BashSpawnError): void {
    this.finish(Object.freeze({ status: 'failed', error }))
  }

  private callDone(listener: (outcome: BashTaskOutcome) => void, outcome: BashTaskOutcome): void {
    try {
      listener(outcome)
    } catch (error) {
      this.log('a done listener of a container command failed', error)
    }
  }

  private readStream(stream: 'stdout' | 'stderr', final: boolean): CapturedOutput {
    const segment = this.segments[stream]
    const text = segment.window.take(final)
    segment.window = new ByteWindow(this.windowBytes)
    segment.window.push(text.carry)
    return Object.freeze({ head: text.head, tail: text.tail, omittedBytes: text.omittedBytes, totalBytes: text.totalBytes, spill: null })
  }

  read(): BashTaskOutput {
    const final = this.outcome !== undefined
    return Object.freeze({ status: this.status, stdout: this.readStream('stdout', final), stderr: this.readStream('stderr', final) })
  }

  kill(): Promise<BashTaskOutcome> {
    if (this.outcome === undefined) this.stopper()
    return this.done
  }

  onDone(listener: (outcome: BashTaskOutcome) => void): () => void {
    if (this.outcome !== undefined) {
      const outcome = this.outcome
      queueMicrotask(() => this.callDone(listener, outcome))
      return () => {}
    }
    this.doneListeners.add(listener)
    return () => {
      this.doneListeners.delete(listener)
    }
  }

  onOutput(listener: (stream: 'stdout' | 'stderr', chunk: Uint8Array) => void): () => void {
    this.outputListeners.add(listener)
    return () => {
      this.outputListeners.delete(listener)
    }
  }
}
