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

function spillNote(spill: SpillInfo | null): string {
  if (spill === null || spill.path === null) {
    const why = spill?.stoppedBy === 'error' ? 'the spill file could not be written' : 'the spill limit is used up'
    return `the full output was not saved (${why})`
  }
  if (spill.complete) return `full output: ${spill.path}`
  const why = spill.stoppedBy === 'error' ? 'writing it failed' : 'the spill limit was reached'
  return `only the first ${spill.bytes} bytes were saved (${why}): ${spill.path}`
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

/** `[timed out after Nms]`, then `[killed by signal: S]` or `[exit code: N]` (nothing for exit 0). */
function endMarkers(result: BashResult): string[] {
  const markers: string[] = []
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
 *    output: /path]` (and the same for stderr) when a stream outgrew the window, `[timed out after Nms]`, then
 *    `[killed by signal: S]` or `[exit code: N]`. Exit code 0 has no marker.
 *
 * When neither stream printed anything (or only a newline) the output part is `(no output)`. A stream that was cut
 * shows its head, a line `[… N bytes omitted …]`, and its tail.
 */
export function formatBashResult(result: BashResult): string {
  const { sections, markers } = outputLines(result.stdout, result.stderr)
  return join(sections, [...markers, ...endMarkers(result)], NO_OUTPUT)
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
