import type { BashResult, BashTaskOutcome, BashTaskOutput, CapturedOutput, SpillInfo } from './bash-executor.js'

/** What the model reads when a command printed nothing. */
export const NO_OUTPUT = '(no output)'

/** One stream as text: all of it, or its head, a line saying how many bytes are left out, and its tail. */
function streamText(output: CapturedOutput): string {
  if (output.omittedBytes === 0) return output.head + output.tail
  const head = output.head === '' || output.head.endsWith('\n') ? output.head : `${output.head}\n`
  return `${head}[… ${output.omittedBytes} bytes omitted …]\n${output.tail}`
}

function withoutFinalNewline(text: string): string {
  return text.endsWith('\n') ? text.slice(0, -1) : text
}

/**
 * The spill file that holds (some of) a stream, or `null`: no file, or one that a failure left without a byte of
 * the stream. The text and `meta` name a path only through this, so neither points at a file that is not there.
 */
export function savedSpillPath(spill: SpillInfo | null): string | null {
  if (spill === null || spill.path === null) return null
  if (!spill.complete && spill.bytes === 0) return null
  return spill.path
}

/** A spill failure's reason as the model reads it: a short code, nothing that could break the marker's line. */
function failureSuffix(spill: SpillInfo): string {
  const failure = spill.failure
  return typeof failure === 'string' && /^[A-Za-z0-9_ .-]{1,40}$/.test(failure) ? `: ${failure}` : ''
}

function spillNote(spill: SpillInfo | null): string {
  const path = savedSpillPath(spill)
  if (spill === null || path === null) {
    const why =
      spill?.stoppedBy === 'error'
        ? spill.failure === 'removed'
          ? 'the spill file was removed or cut short while the command ran'
          : `the spill file could not be written${failureSuffix(spill)}`
        : spill !== null && spill.path !== null
          ? 'the spill limit was reached before any of it'
          : 'the spill limit is used up'
    return `the full output was not saved (${why})`
  }
  if (spill.complete) return `full output: ${path}`
  const why = spill.stoppedBy === 'error' ? `writing it failed${failureSuffix(spill)}` : 'the spill limit was reached'
  return `only the first ${spill.bytes} bytes were saved (${why}): ${path}`
}

function truncationMarker(label: 'stdout' | 'stderr', output: CapturedOutput): string | undefined {
  if (output.omittedBytes === 0) return undefined
  return `[output truncated: ${output.omittedBytes} of ${output.totalBytes} bytes of ${label} omitted; ${spillNote(output.spill)}]`
}

/**
 * The output part of a text: stdout, then `[stderr]` and stderr (a stream that printed nothing is left out, and
 * one final newline of each is dropped), then one `[output truncated …]` marker per stream that was cut.
 */
function outputLines(stdout: CapturedOutput, stderr: CapturedOutput): { sections: string[]; markers: string[] } {
  const sections: string[] = []
  if (stdout.totalBytes > 0) sections.push(withoutFinalNewline(streamText(stdout)))
  if (stderr.totalBytes > 0) sections.push(`[stderr]\n${withoutFinalNewline(streamText(stderr))}`)
  const markers: string[] = []
  const cutOut = truncationMarker('stdout', stdout)
  if (cutOut !== undefined) markers.push(cutOut)
  const cutErr = truncationMarker('stderr', stderr)
  if (cutErr !== undefined) markers.push(cutErr)
  return { sections, markers }
}

/** The marker of output that was cut off (see {@link BashResult.outputCutOff}). */
function cutOffMarker(result: BashResult): string | undefined {
  if (result.outputCutOff === 'drain') {
    return (
      '[output cut off: a process that left the command (started with setsid, or re-parented) kept its output ' +
      'open after the command ended; it was closed at the drain limit and later output was not read]'
    )
  }
  if (result.outputCutOff === 'stop') return '[output cut off: the output was still open when the command was stopped]'
  return undefined
}

/**
 * `[output cut off: …]` when a pipe was closed before its end, `[timed out after Nms]`, then `[killed by signal: S]`
 * or `[exit code: N]` (nothing for exit 0).
 */
function endMarkers(result: BashResult): string[] {
  const markers: string[] = []
  const cutOff = cutOffMarker(result)
  if (cutOff !== undefined) markers.push(cutOff)
  if (result.timedOut) markers.push(`[timed out after ${result.timeoutMs}ms]`)
  if (result.signal !== null) markers.push(`[killed by signal: ${result.signal}]`)
  else if (result.exitCode !== null && result.exitCode !== 0) markers.push(`[exit code: ${result.exitCode}]`)
  return markers
}

function join(sections: string[], markers: string[], empty: string): string {
  const body = sections.join('\n')
  const lines = body === '' ? [empty] : [body]
  return [...lines, ...markers].join('\n')
}

/**
 * The text the model reads for a finished foreground command:
 *
 * 1. stdout (one final newline dropped);
 * 2. `[stderr]` on its own line, then stderr, when stderr is not empty;
 * 3. markers, each on its own line, in this order: `[output truncated: N of M bytes of stdout omitted; full
 *    output: /path]` (and the same for stderr) when a stream outgrew the window — or, when the spill file could
 *    not be made or written, `only the first K bytes were saved (why): /path` or `the full output was not saved
 *    (why)`, never a path that holds nothing — `[output cut off: …]` when a pipe was still open at the drain limit
 *    (held by a process that left the command) or when the command was stopped —, `[timed out after Nms]`, then
 *    `[killed by signal: S]` or `[exit code: N]`. Exit code 0 has no marker.
 *
 * When neither stream printed anything (or only a newline) the output part is `(no output)`. A stream that was cut
 * shows its head, a line `[… N bytes omitted …]`, and its tail. Last, the executor's `note` on its own line, when
 * the result has one.
 */
export function formatBashResult(result: BashResult): string {
  const { sections, markers } = outputLines(result.stdout, result.stderr)
  const text = join(sections, [...markers, ...endMarkers(result)], NO_OUTPUT)
  const note = executorNote(result)
  return note === undefined ? text : `${text}\n${note}`
}

/** The result's own, non-empty `note` (an inherited one, from a polluted prototype, is not the executor's). */
function executorNote(result: BashResult): string | undefined {
  const note: unknown = Object.hasOwn(result, 'note') ? result.note : undefined
  return typeof note === 'string' && note !== '' ? note : undefined
}

/**
 * The text the model reads from `bash_output` and `bash_kill`: the output since the previous read, laid out as in
 * {@link formatBashResult} (`(no new output)` when there is none), then, once the task has ended, its end markers,
 * and last a status line: `[task <id> is still running]`, `[task <id> has finished]`, `[task <id> was killed]`,
 * `[task <id> was stopped]` (the executor was unloaded) or `[task <id> failed to start: <why>]`.
 */
export function formatBashTaskOutput(taskId: string, output: BashTaskOutput, outcome: BashTaskOutcome | undefined): string {
  const { sections, markers } = outputLines(output.stdout, output.stderr)
  let status: string
  if (outcome === undefined || output.status === 'running') {
    status = `[task ${taskId} is still running]`
  } else if (outcome.status === 'failed') {
    status = `[task ${taskId} failed to start: ${outcome.error.message}]`
  } else {
    markers.push(...endMarkers(outcome.result))
    const note = executorNote(outcome.result)
    if (note !== undefined) markers.push(note)
    const reason = outcome.result.stopReason
    status =
      reason === 'kill'
        ? `[task ${taskId} was killed]`
        : reason === 'dispose' || reason === 'abort'
          ? `[task ${taskId} was stopped]`
          : `[task ${taskId} has finished]`
  }
  return join(sections, [...markers, status], '(no new output)')
}

/** How a finished background task ended, in one sentence (for the completion notice). */
export function describeTaskEnd(outcome: BashTaskOutcome): string {
  if (outcome.status === 'failed') return `failed to start: ${outcome.error.message}`
  const { result } = outcome
  if (result.timedOut) {
    return `timed out after ${result.timeoutMs}ms and was stopped${result.signal === null ? '' : ` (signal ${result.signal})`}`
  }
  if (result.signal !== null) return `was killed by signal ${result.signal}`
  return `finished with exit code ${result.exitCode ?? 'unknown'}`
}

/** Where a task's combined output stream stands between two appends (see {@link formatOutputChunk}). */
export interface OutputChunkState {
  /** The stream the last text appended came from (`stdout` at the start). */
  stream: 'stdout' | 'stderr'
  /** True when nothing was appended yet or the last text ended with a newline. */
  atLineStart: boolean
}

/**
 * The `[stdout]` / `[stderr]` line (on a line of its own) that goes before `stream`'s text in a combined output stream
 * when the stream switches to it, else `''`; records the switch in `state`.
 */
export function streamSwitch(state: OutputChunkState, stream: 'stdout' | 'stderr'): string {
  if (state.stream === stream) return ''
  state.stream = stream
  return `${state.atLineStart ? '' : '\n'}[${stream}]\n`
}

/**
 * The text to append to a task's one combined output stream for one read of a background command (the task layer's
 * output, which `task_output` reads): stdout as it is, stderr after a `[stderr]` line, and `[stdout]` again when
 * stdout follows stderr (a marker always starts a line). A stream the read window cut shows its head, the omitted
 * line and its tail, then its `[output truncated …]` marker. `''` when the read holds nothing.
 */
export function formatOutputChunk(output: BashTaskOutput, state: OutputChunkState): string {
  let text = ''
  const append = (stream: 'stdout' | 'stderr', captured: CapturedOutput): void => {
    if (captured.totalBytes === 0) return
    text += streamSwitch(state, stream)
    text += streamText(captured)
    const marker = truncationMarker(stream, captured)
    if (marker !== undefined) text += `${text.endsWith('\n') ? '' : '\n'}${marker}\n`
    state.atLineStart = text.endsWith('\n')
  }
  // The stream the last append came from goes first, so a read of both streams switches once, not twice.
  if (state.stream === 'stderr') {
    append('stderr', output.stderr)
    append('stdout', output.stdout)
  } else {
    append('stdout', output.stdout)
    append('stderr', output.stderr)
  }
  return text
}

/**
 * The final result of a background command run as a task-layer task: one sentence on how it ended (`The command
 * finished with exit code 3.`, `… timed out after 100ms and was stopped (signal SIGTERM).`), then `[output cut off …]`
 * when a pipe was closed before its end, and the executor's note.
 * Where each whole stream is saved, when it outgrew the window, is in the markers the output stream carried.
 */
export function formatTaskEnd(outcome: BashTaskOutcome & { readonly status: 'completed' }): string {
  const lines = [`The command ${describeTaskEnd(outcome)}.`]
  const cutOff = cutOffMarker(outcome.result)
  if (cutOff !== undefined) lines.push(cutOff)
  const note = executorNote(outcome.result)
  if (note !== undefined) lines.push(note)
  return lines.join('\n')
}
