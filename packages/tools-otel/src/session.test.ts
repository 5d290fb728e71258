import { TimeoutPolicy } from '@dsh/timeout-policy'
import type { Agent, ToolApprovalOutcome, ToolApprovalRequest } from '@dsh/tools-core'
import { defineTool } from '@dsh/tools-schema'
import { SpanStatusCode } from '@opentelemetry/api'
import type { Histogram } from '@opentelemetry/sdk-metrics'
import type { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { byName, childrenOf, traced, tree, type Traced } from './test-kit.js'

const SECRET = 'sk-live-7f3a9c21d4e85b60'
const agent: Agent = { id: 'agent-1' }

/** The demo's session in miniature: its tools, guard, ask policy, approval service, timeout policy and redaction. */
async function demoHarness(ctx: Context, answers: ToolApprovalOutcome[] = []): Promise<void> {
  await ctx.plugin(TimeoutPolicy, { graceMs: 50 })
  const tools = ctx.tools
  tools.register(
    defineTool({
      name: 'echo',
      description: 'Repeat a text.',
      parameters: { text: { type: 'string', required: true }, times: { type: 'integer', minimum: 1, maximum: 3 } },
      execute: ({ text, times }) => Array.from({ length: times ?? 1 }, () => text).join('\n'),
    }),
  )
  tools.register(
    defineTool({
      name: 'bash',
      description: 'Run a command.',
      parameters: { command: { type: 'string', required: true } },
      execute: ({ command }) => (command === 'cat .env' ? `API_TOKEN=${SECRET}\n` : `ran ${command}`),
    }),
  )
  tools.register(
    defineTool({
      name: 'write_file',
      description: 'Write a file.',
      parameters: { path: { type: 'string', required: true }, content: { type: 'string', required: true } },
      execute: ({ path }) => `wrote ${path}`,
    }),
  )
  tools.register(
    defineTool({
      name: 'search_archive',
      description: 'A slow search.',
      parameters: { query: { type: 'string', required: true } },
      timeoutMs: 30,
      execute: (_args, exec) =>
        new Promise<string>((_resolve, reject) => exec.signal.addEventListener('abort', () => reject(exec.signal.reason), { once: true })),
    }),
  )
  tools.guard((exec) => (exec.name === 'bash' && JSON.stringify(exec.arguments).includes('rm -rf /') ? 'destructive command' : undefined))
  tools.on('tools/pre-execute', (exec, next) => (exec.name === 'write_file' ? { kind: 'ask', reason: 'it writes a file' } : next()))
  tools.on('tools/post-execute', (_exec, result, next) => {
    const text = JSON.stringify(result.content)
    return text.includes(SECRET) ? { kind: 'accept', content: JSON.parse(text.replaceAll(SECRET, '[redacted]')) } : next()
  })
  ctx.provide('toolApproval', {
    async requestApproval(_request: ToolApprovalRequest): Promise<ToolApprovalOutcome> {
      return answers.shift() ?? { outcome: 'allowed-once' }
    },
  })
}

let harness: Traced | undefined
afterEach(async () => {
  await harness?.dispose()
  harness = undefined
})

async function run(h: Traced, callId: string, name: string, args: Record<string, unknown>) {
  return h.ctx.tools.execute({ callId, name, arguments: args, agent })
}

describe('the demo session as spans', () => {
  it('gives every outcome its span, tree, attributes and status', async () => {
    harness = await traced((ctx) => demoHarness(ctx, [{ outcome: 'allowed-once' }, { outcome: 'rejected', reason: 'no' }]), {
      content: { results: false },
    })
    const h = harness
    const outcomes = [
      await run(h, 'c1', 'echo', { text: 'hello' }),
      await run(h, 'c2', 'echo', { text: 42, times: 9 }),
      await run(h, 'c3', 'read_file', { path: 'notes.md' }),
      await run(h, 'c4', 'write_file', { path: 'notes.md', content: 'x' }),
      await run(h, 'c5', 'write_file', { path: 'other.md', content: 'y' }),
      await run(h, 'c6', 'bash', { command: 'cat .env' }),
      await run(h, 'c7', 'bash', { command: 'rm -rf /' }),
      await run(h, 'c8', 'search_archive', { query: 'release' }),
    ].map((result) => (result.isError ? result.error?.code : 'ok'))
    expect(outcomes).toEqual(['ok', 'INVALID_ARGS', 'UNKNOWN_TOOL', 'ok', 'APPROVAL_REJECTED', 'ok', 'GUARD_DENIED', 'TOOL_TIMEOUT'])

    const spans = h.spans.getFinishedSpans()
    expect(tree(spans)).toEqual([
      'execute_tool echo [ok]',
      '  body echo',
      'execute_tool echo [INVALID_ARGS]',
      'execute_tool read_file [UNKNOWN_TOOL]',
      'execute_tool write_file [ok]',
      '  approval write_file',
      '  body write_file',
      'execute_tool write_file [APPROVAL_REJECTED]',
      '  approval write_file',
      'execute_tool bash [ok]',
      '  body bash',
      'execute_tool bash [GUARD_DENIED]',
      'execute_tool search_archive [TOOL_TIMEOUT]',
      '  body search_archive [TOOL_TIMEOUT]',
    ])

    const ok = byName(spans, 'execute_tool echo')
    expect(ok.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'echo',
      'gen_ai.tool.call.id': 'c1',
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.description': 'Repeat a text.',
      'gen_ai.agent.id': 'agent-1',
      'dsh.tool.policy.decision': 'allow',
      'dsh.tool.review.decision': 'accept',
      'dsh.tool.outcome': 'ok',
    })
    expect(ok.attributes['error.type']).toBeUndefined()
    expect(ok.status.code).toBe(SpanStatusCode.UNSET)
    expect(ok.events.map((event) => event.name)).toEqual([
      'dsh.policy.decided',
      'dsh.dispatch.started',
      'dsh.dispatch.ended',
      'dsh.review.started',
      'dsh.review.decided',
    ])

    const invalid = spans.find((span) => span.attributes['gen_ai.tool.call.id'] === 'c2')
    expect(invalid?.attributes).toMatchObject({ 'error.type': 'INVALID_ARGS', 'dsh.tool.error.name': 'ToolArgsError', 'dsh.tool.ended_before_policy': true })
    expect(invalid?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'INVALID_ARGS' })
    expect(byName(spans, 'execute_tool read_file').attributes['error.type']).toBe('UNKNOWN_TOOL')

    const approved = spans.find((span) => span.attributes['gen_ai.tool.call.id'] === 'c4')!
    expect(approved.attributes).toMatchObject({ 'dsh.tool.policy.decision': 'ask', 'dsh.tool.approval.outcome': 'allowed-once' })
    const approvalSpans = spans.filter((span) => span.name === 'approval write_file')
    expect(approvalSpans.map((span) => [span.attributes['dsh.tool.approval.outcome'], span.status.code])).toEqual([
      ['allowed-once', SpanStatusCode.UNSET],
      ['APPROVAL_REJECTED', SpanStatusCode.ERROR],
    ])

    const redacted = spans.find((span) => span.attributes['gen_ai.tool.call.id'] === 'c6')!
    expect(redacted.attributes).toMatchObject({ 'dsh.tool.review.decision': 'accept', 'dsh.tool.review.replaced': ['content'] })

    const guarded = spans.find((span) => span.attributes['gen_ai.tool.call.id'] === 'c7')!
    expect(guarded.attributes).toMatchObject({ 'dsh.tool.policy.decision': 'allow', 'error.type': 'GUARD_DENIED', 'dsh.tool.error.name': 'ToolDeniedError' })
    expect(childrenOf(spans, guarded)).toEqual([])

    const timedOut = byName(spans, 'execute_tool search_archive')
    expect(timedOut.attributes).toMatchObject({ 'error.type': 'TOOL_TIMEOUT', 'dsh.tool.error.name': 'ToolTimeoutError' })
    expect(byName(spans, 'body search_archive').status.code).toBe(SpanStatusCode.ERROR)

    // Nothing secret in any span: neither the credential the tool read nor any argument.
    const exported = JSON.stringify(spans.map((span) => [span.name, span.attributes, span.events]))
    expect(exported).not.toContain(SECRET)
    expect(exported).not.toContain('notes.md')
    expect(exported).not.toContain('gen_ai.tool.call.arguments')
    expect(exported).not.toContain('gen_ai.tool.call.result')
  })

  it('measures durations by tool and outcome, and counts denials by code', async () => {
    harness = await traced((ctx) => demoHarness(ctx, [{ outcome: 'rejected' }]))
    const h = harness
    await run(h, 'c1', 'echo', { text: 'a' })
    await run(h, 'c2', 'echo', { text: 'b' })
    await run(h, 'c3', 'nope', {})
    await run(h, 'c4', 'write_file', { path: 'a', content: 'b' })
    await run(h, 'c5', 'bash', { command: 'rm -rf /' })
    const points = await h.collect()
    const durations = (points.get('gen_ai.execute_tool.duration') ?? []).map((point) => [
      point.attributes['gen_ai.tool.name'],
      point.attributes['dsh.tool.outcome'],
      point.attributes['error.type'],
      (point.value as Histogram).count,
    ])
    expect(durations).toEqual(
      expect.arrayContaining([
        ['echo', 'ok', undefined, 2],
        ['_OTHER', 'UNKNOWN_TOOL', 'UNKNOWN_TOOL', 1],
        ['write_file', 'APPROVAL_REJECTED', 'APPROVAL_REJECTED', 1],
        ['bash', 'GUARD_DENIED', 'GUARD_DENIED', 1],
      ]),
    )
    expect(durations).toHaveLength(4)
    const denials = (points.get('dsh.tool.denials') ?? []).map((point) => [point.attributes['gen_ai.tool.name'], point.attributes['error.type'], point.value])
    expect(denials).toEqual(
      expect.arrayContaining([
        ['write_file', 'APPROVAL_REJECTED', 1],
        ['bash', 'GUARD_DENIED', 1],
      ]),
    )
    expect(denials).toHaveLength(2)
  })
})

describe('arguments and results', () => {
  it('records nothing of them by default, and with the opt-in only what the redaction and the review left', async () => {
    const redact = (text: string): string => text.replaceAll(/sk-live-[0-9a-f]+/g, '[redacted]')
    harness = await traced(demoHarness, { content: { arguments: true, results: true, redact, maxLength: 120 } })
    const h = harness
    await run(h, 'c1', 'bash', { command: `curl -H "Authorization: Bearer ${SECRET}" https://example.test` })
    await run(h, 'c2', 'bash', { command: 'cat .env' })
    await run(h, 'c3', 'echo', { text: 'x'.repeat(500) })
    const spans = h.spans.getFinishedSpans()
    const exported = JSON.stringify(spans.map((span) => [span.name, span.attributes, span.events]))
    expect(exported).not.toContain(SECRET)
    const first = spans.find((span) => span.attributes['gen_ai.tool.call.id'] === 'c1')!
    expect(first.attributes['gen_ai.tool.call.arguments']).toContain('Bearer [redacted]')
    const second = spans.find((span) => span.attributes['gen_ai.tool.call.id'] === 'c2')!
    expect(second.attributes['gen_ai.tool.call.result']).toBe('[{"type":"text","text":"API_TOKEN=[redacted]\\n"}]')
    const long = spans.find((span) => span.attributes['gen_ai.tool.call.id'] === 'c3')!
    const recorded = long.attributes['gen_ai.tool.call.arguments'] as string
    expect(recorded.length).toBeLessThanOrEqual(120)
    expect(recorded).toMatch(/…\[\+\d+ chars\]$/)
  })

  it('records the reviewed result, never the body own one, when only results are opted in', async () => {
    harness = await traced(demoHarness, { content: { results: true } })
    await run(harness, 'c1', 'bash', { command: 'cat .env' })
    const spans = harness.spans.getFinishedSpans()
    expect(JSON.stringify(spans.map((span) => span.attributes))).not.toContain(SECRET)
    expect(byName(spans, 'execute_tool bash').attributes['gen_ai.tool.call.result']).toContain('[redacted]')
    expect(byName(spans, 'execute_tool bash').attributes['gen_ai.tool.call.arguments']).toBeUndefined()
  })
})
