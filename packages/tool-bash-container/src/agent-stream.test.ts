import { describe, expect, it } from 'vitest'
import { AgentProtocolError, LineSplitter, agentStreamLimits, readAgentMessage } from './agent-stream.js'

const limits = agentStreamLimits(1_000)
const result = {
  command: 'echo é',
  cwd: '/w',
  pid: 7,
  exitCode: 0,
  signal: null,
  timedOut: false,
  aborted: false,
  stopReason: null,
  timeoutMs: 1000,
  durationMs: 3.25,
  outputCutOff: null,
  stdout: { head: 'é\n', tail: '', omittedBytes: 0, totalBytes: 3, spill: null },
  stderr: { head: '', tail: '', omittedBytes: 0, totalBytes: 0, spill: { path: '/tmp/x', bytes: 5, complete: false, stoppedBy: 'cap' } },
}

describe('the agent stream, read as untrusted input', () => {
  it('splits lines on bytes, so a character cut between two frames arrives whole', () => {
    const splitter = new LineSplitter(100)
    const bytes = Buffer.from('{"a":"é"}\n{"b":1}\n')
    const lines = [...splitter.push(bytes.subarray(0, 7)), ...splitter.push(bytes.subarray(7, 12)), ...splitter.push(bytes.subarray(12))]
    expect(lines).toEqual(['{"a":"é"}', '{"b":1}'])
  })

  it('refuses a line past the bound before it is buffered whole, across chunks or within one', () => {
    const splitter = new LineSplitter(10)
    splitter.push(Buffer.from('123456'))
    expect(() => splitter.push(Buffer.from('789012'))).toThrow(AgentProtocolError)
    expect(() => new LineSplitter(10).push(Buffer.from('12345678901\n'))).toThrow(/a line of over 10 bytes/)
  })

  it('rebuilds a result from the known fields: an extra field or executorMeta from the container is dropped', () => {
    const message = readAgentMessage(JSON.stringify({ op: 'done', id: 3, result: { ...result, executorMeta: { container: 'forged' }, __proto__: { x: 1 }, extra: 1 } }), limits)
    expect(message).toEqual({ op: 'done', id: 3, result })
  })

  it.each([
    ['not JSON', 'hello', /a line that is not JSON: "hello"/],
    ['an array', '[1]', /the message is not an object/],
    ['an unknown op', '{"op":"rm -rf"}', /an unknown op "rm -rf"/],
    ['a result with a wrong type', JSON.stringify({ op: 'done', id: 1, result: { ...result, stdout: 7 } }), /result\.stdout is not an object/],
    ['a text past the window', JSON.stringify({ op: 'done', id: 1, result: { ...result, stdout: { ...result.stdout, head: 'x'.repeat(3_000) } } }), /result\.stdout\.head is not a string of at most 2016/],
    ['a negative id', '{"op":"started","id":-1,"pid":1,"startedAt":1}', /id is not a count/],
    ['a stream that is not one', '{"op":"out","id":1,"stream":"stdin","data":""}', /stream is not one of stdout, stderr/],
    ['a tunnel message without its connection', '{"op":"net-data","data":""}', /conn is not a count/],
  ])('refuses %s, naming what is wrong', (_, line, problem) => {
    expect(() => readAgentMessage(line, limits)).toThrow(problem)
  })
})
