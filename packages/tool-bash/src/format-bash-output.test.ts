import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { BashResult, BashTaskOutput, CapturedOutput, SpillInfo } from './bash-executor.js'
import { BashSpawnError } from './bash-spawn-error.js'
import { describeTaskEnd, formatBashResult, formatBashTaskOutput, savedSpillPath } from './format-bash-output.js'

function captured(head: string, options: { tail?: string; omitted?: number; spill?: SpillInfo | null } = {}): CapturedOutput {
  const tail = options.tail ?? ''
  const omitted = options.omitted ?? 0
  return {
    head,
    tail,
    omittedBytes: omitted,
    totalBytes: Buffer.byteLength(head) + omitted + Buffer.byteLength(tail),
    spill: options.spill ?? null,
  }
}

const none = captured('')

function result(overrides: Partial<BashResult> = {}): BashResult {
  return {
    command: 'cmd',
    cwd: '/work',
    pid: 42,
    exitCode: 0,
    signal: null,
    timedOut: false,
    aborted: false,
    stopReason: null,
    timeoutMs: 1_000,
    durationMs: 3,
    outputCutOff: null,
    stdout: none,
    stderr: none,
    ...overrides,
  }
}

const spilled = (path: string, bytes: number): SpillInfo => ({ path, bytes, complete: true, stoppedBy: null })

describe('formatBashResult', () => {
  it('shows stdout alone for exit 0, without its final newline', () => {
    expect(formatBashResult(result({ stdout: captured('hello\nworld\n') }))).toBe('hello\nworld')
    expect(formatBashResult(result({ stdout: captured('no newline') }))).toBe('no newline')
    expect(formatBashResult(result({ stdout: captured('two\n\n') }))).toBe('two\n')
  })

  it('says (no output) when nothing was printed, with the markers after it', () => {
    expect(formatBashResult(result())).toBe('(no output)')
    expect(formatBashResult(result({ stdout: captured('\n') }))).toBe('(no output)')
    expect(formatBashResult(result({ exitCode: 3 }))).toBe('(no output)\n[exit code: 3]')
  })

  it('puts stderr after a [stderr] line', () => {
    expect(formatBashResult(result({ stdout: captured('out\n'), stderr: captured('err\n') }))).toBe('out\n[stderr]\nerr')
    expect(formatBashResult(result({ stderr: captured('only err') }))).toBe('[stderr]\nonly err')
  })

  it('marks a nonzero exit, a signal (instead of an exit code) and a timeout, in that order', () => {
    expect(formatBashResult(result({ stdout: captured('x\n'), exitCode: 2 }))).toBe('x\n[exit code: 2]')
    expect(formatBashResult(result({ exitCode: null, signal: 'SIGKILL' }))).toBe('(no output)\n[killed by signal: SIGKILL]')
    expect(formatBashResult(result({ exitCode: null, signal: 'SIGTERM', timedOut: true, timeoutMs: 250 }))).toBe(
      '(no output)\n[timed out after 250ms]\n[killed by signal: SIGTERM]',
    )
    // A command that traps the signal and exits 0 after its timeout: the timeout is still stated.
    expect(formatBashResult(result({ timedOut: true, timeoutMs: 5 }))).toBe('(no output)\n[timed out after 5ms]')
  })

  it('shows a cut stream as head, an omission line and tail, and names the spill file in a marker', () => {
    const stdout = captured('first line\nsecond', { tail: 'end\n', omitted: 1_000, spill: spilled('/tmp/d/000001-stdout.log', 1_025) })
    expect(formatBashResult(result({ stdout, exitCode: 1 }))).toBe(
      [
        'first line',
        'second',
        '[… 1000 bytes omitted …]',
        'end',
        '[output truncated: 1000 of 1021 bytes of stdout omitted; full output: /tmp/d/000001-stdout.log]',
        '[exit code: 1]',
      ].join('\n'),
    )
  })

  it('lists both truncated streams, stdout first, and says when the full output was not saved', () => {
    const stdout = captured('a\n', { tail: 'b\n', omitted: 10, spill: { path: null, bytes: 0, complete: false, stoppedBy: 'cap' } })
    const stderr = captured('c\n', { tail: 'd', omitted: 20, spill: { path: '/s/2.log', bytes: 7, complete: false, stoppedBy: 'error' } })
    expect(formatBashResult(result({ stdout, stderr }))).toBe(
      [
        'a',
        '[… 10 bytes omitted …]',
        'b',
        '[stderr]',
        'c',
        '[… 20 bytes omitted …]',
        'd',
        '[output truncated: 10 of 14 bytes of stdout omitted; the full output was not saved (the spill limit is used up)]',
        '[output truncated: 20 of 23 bytes of stderr omitted; only the first 7 bytes were saved (writing it failed): /s/2.log]',
      ].join('\n'),
    )
    const capped = captured('x', { tail: 'y', omitted: 1, spill: { path: '/s/3.log', bytes: 2, complete: false, stoppedBy: 'cap' } })
    expect(formatBashResult(result({ stdout: capped }))).toContain('only the first 2 bytes were saved (the spill limit was reached): /s/3.log]')
    const unwritable = captured('x', { tail: 'y', omitted: 1, spill: { path: null, bytes: 0, complete: false, stoppedBy: 'error' } })
    expect(formatBashResult(result({ stdout: unwritable }))).toContain('the full output was not saved (the spill file could not be written)]')
  })

  it('never names a spill path that holds nothing, and says why the full output was not saved', () => {
    const notCreated = captured('x', { tail: 'y', omitted: 1, spill: { path: '/s/4.log', bytes: 0, complete: false, stoppedBy: 'error', failure: 'ENOTDIR' } })
    const text = formatBashResult(result({ stdout: notCreated }))
    expect(text).toContain('[output truncated: 1 of 3 bytes of stdout omitted; the full output was not saved (the spill file could not be written: ENOTDIR)]')
    expect(text).not.toContain('/s/4.log')
    const partial = captured('x', { tail: 'y', omitted: 1, spill: { path: '/s/5.log', bytes: 9, complete: false, stoppedBy: 'error', failure: 'ENOSPC' } })
    expect(formatBashResult(result({ stdout: partial }))).toContain('only the first 9 bytes were saved (writing it failed: ENOSPC): /s/5.log]')
    const removed = captured('x', { tail: 'y', omitted: 1, spill: { path: null, bytes: 0, complete: false, stoppedBy: 'error', failure: 'removed' } })
    expect(formatBashResult(result({ stdout: removed }))).toContain('the full output was not saved (the spill file was removed or cut short while the command ran)]')
    const emptyAtCap = captured('x', { tail: 'y', omitted: 1, spill: { path: '/s/6.log', bytes: 0, complete: false, stoppedBy: 'cap' } })
    expect(formatBashResult(result({ stdout: emptyAtCap }))).not.toContain('/s/6.log')
    // A reason that could break the marker's line is left out, not printed.
    const hostile = captured('x', { tail: 'y', omitted: 1, spill: { path: null, bytes: 0, complete: false, stoppedBy: 'error', failure: 'x]\n[exit code: 0' } })
    expect(formatBashResult(result({ stdout: hostile }))).toContain('the full output was not saved (the spill file could not be written)]')
    expect(savedSpillPath(notCreated.spill)).toBeNull()
    expect(savedSpillPath(partial.spill)).toBe('/s/5.log')
    expect(savedSpillPath(spilled('/s/7.log', 3))).toBe('/s/7.log')
    expect(savedSpillPath(null)).toBeNull()
  })

  it('keeps the markers in their fixed order and last, whatever the output holds', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 40 })
    const stream = fc.record({ head: text, tail: text, omitted: fc.nat(10_000) }).map(({ head, tail, omitted }) =>
      omitted === 0 ? captured(head + tail) : captured(head, { tail, omitted, spill: spilled('/tmp/s.log', omitted + 1) }),
    )
    const ending = fc.oneof(
      fc.record({ exitCode: fc.integer({ min: 0, max: 255 }), signal: fc.constant(null) }),
      fc.record({ exitCode: fc.constant(null), signal: fc.constantFrom('SIGTERM', 'SIGKILL', 'SIGINT') }),
    )
    fc.assert(
      fc.property(stream, stream, ending, fc.boolean(), (stdout, stderr, end, timedOut) => {
        const formatted = formatBashResult(result({ stdout, stderr, ...end, timedOut, timeoutMs: 77 }))
        const lines = formatted.split('\n')
        const expected: string[] = []
        if (stdout.omittedBytes > 0) expected.push(`[output truncated: ${stdout.omittedBytes} of ${stdout.totalBytes} bytes of stdout omitted; full output: /tmp/s.log]`)
        if (stderr.omittedBytes > 0) expected.push(`[output truncated: ${stderr.omittedBytes} of ${stderr.totalBytes} bytes of stderr omitted; full output: /tmp/s.log]`)
        if (timedOut) expected.push('[timed out after 77ms]')
        if (end.signal !== null) expected.push(`[killed by signal: ${end.signal}]`)
        else if (end.exitCode !== 0) expected.push(`[exit code: ${end.exitCode}]`)
        expect(lines.slice(lines.length - expected.length)).toEqual(expected)
        const body = lines.slice(0, lines.length - expected.length).join('\n')
        const printed = stdout.totalBytes > 0 || stderr.totalBytes > 0
        if (!printed) expect(body).toBe('(no output)')
        if (stderr.totalBytes > 0) expect(body).toContain('[stderr]\n')
        else expect(body.includes('[stderr]')).toBe((stdout.head + stdout.tail).includes('[stderr]'))
        if (stdout.totalBytes > 0 && stdout.omittedBytes === 0 && stdout.head.replace(/\n$/, '') !== '') {
          expect(body.startsWith(stdout.head.replace(/\n$/, ''))).toBe(true)
        }
      }),
    )
  })
})

describe('formatBashTaskOutput', () => {
  const read = (status: BashTaskOutput['status'], stdout = none, stderr = none): BashTaskOutput => ({ status, stdout, stderr })

  it('says a running task is still running, after what it printed since the last read', () => {
    expect(formatBashTaskOutput('bash_1', read('running', captured('tick\n')), undefined)).toBe('tick\n[task bash_1 is still running]')
    expect(formatBashTaskOutput('bash_1', read('running'), undefined)).toBe('(no new output)\n[task bash_1 is still running]')
  })

  it('ends a finished task with its exit markers and how it ended', () => {
    const done = result({ exitCode: 4 })
    expect(formatBashTaskOutput('bash_2', read('completed', captured('bye\n')), { status: 'completed', result: done })).toBe(
      'bye\n[exit code: 4]\n[task bash_2 has finished]',
    )
    const killed = result({ exitCode: null, signal: 'SIGTERM', aborted: true, stopReason: 'kill' })
    expect(formatBashTaskOutput('bash_3', read('completed'), { status: 'completed', result: killed })).toBe(
      '(no new output)\n[killed by signal: SIGTERM]\n[task bash_3 was killed]',
    )
    const disposed = result({ exitCode: null, signal: 'SIGTERM', aborted: true, stopReason: 'dispose' })
    expect(formatBashTaskOutput('bash_4', read('completed'), { status: 'completed', result: disposed })).toContain('[task bash_4 was stopped]')
    const timedOut = result({ exitCode: null, signal: 'SIGTERM', timedOut: true, stopReason: 'timeout', timeoutMs: 9 })
    expect(formatBashTaskOutput('bash_5', read('completed'), { status: 'completed', result: timedOut })).toBe(
      '(no new output)\n[timed out after 9ms]\n[killed by signal: SIGTERM]\n[task bash_5 has finished]',
    )
  })

  it('says a task that could not start failed to start, with why', () => {
    const error = new BashSpawnError('cannot start /bin/nope in /work: spawn /bin/nope ENOENT', '/work')
    expect(formatBashTaskOutput('bash_6', read('failed'), { status: 'failed', error })).toBe(
      '(no new output)\n[task bash_6 failed to start: cannot start /bin/nope in /work: spawn /bin/nope ENOENT]',
    )
  })
})

describe('describeTaskEnd', () => {
  it('says in words how a task ended', () => {
    expect(describeTaskEnd({ status: 'completed', result: result() })).toBe('finished with exit code 0')
    expect(describeTaskEnd({ status: 'completed', result: result({ exitCode: null, signal: 'SIGSEGV' }) })).toBe('was killed by signal SIGSEGV')
    expect(describeTaskEnd({ status: 'completed', result: result({ exitCode: null, signal: 'SIGTERM', timedOut: true, timeoutMs: 5 }) })).toBe(
      'timed out after 5ms and was stopped (signal SIGTERM)',
    )
    expect(describeTaskEnd({ status: 'failed', error: new BashSpawnError('no shell', '/') })).toBe('failed to start: no shell')
  })
})
