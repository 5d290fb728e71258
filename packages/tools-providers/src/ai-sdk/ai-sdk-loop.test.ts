// The real AI SDK loop (generateText with stopWhen) driving registry tools through aiSdkTools, with the SDK's own
// mock model; each test asserts what the model received on each step, as the SDK encodes it.
import { ToolContentError, type ToolApprovalOutcome, type ToolApprovalRequest } from '@dsh/tools-core'
import { generateText, stepCountIs, streamText } from 'ai'
import type { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { createRegistry, scriptedModel, toolCall, toolResultsIn } from './ai-sdk-test-kit.js'
import { aiSdkTools, isAiSdkToolOutput } from './index.js'

describe('aiSdkTools in the AI SDK generateText loop', () => {
  it('a policy denial reaches the model as error-text with the DENIED code, and the body never runs', async () => {
    const { ctx, runs } = await createRegistry()
    ctx.tools.on('tools/pre-execute', (exec, next) => (exec.name === 'delete_file' ? { kind: 'deny', reason: 'Deleting files is not allowed here.' } : next()))
    const { model, prompts } = scriptedModel([[toolCall('call_del', 'delete_file', { path: 'a.txt' })]])
    const result = await generateText({ model, tools: aiSdkTools(ctx.tools), prompt: 'clean up', stopWhen: stepCountIs(4) })

    expect(runs).toEqual([])
    expect(prompts).toHaveLength(2)
    expect(toolResultsIn(prompts[0])).toEqual([])
    const [denied] = toolResultsIn(prompts[1]) as { toolCallId: string; toolName: string; output: { type: string; value: string } }[]
    expect(denied).toMatchObject({ toolCallId: 'call_del', toolName: 'delete_file', output: { type: 'error-text' } })
    expect(denied?.output.value).toMatch(/^Error \(DENIED\): the tool call failed\.\n/)
    expect(denied?.output.value).toContain('Deleting files is not allowed here.')
    // The app keeps the frozen result, code included.
    const output = result.steps[0]?.toolResults[0]?.output as { callId: string; isError: boolean; error?: { code: string } }
    expect(output).toMatchObject({ callId: 'call_del', isError: true, error: { code: 'DENIED' } })
    expect(result.text).toBe('done')
  })

  it('an invalid call comes back as INVALID_ARGS naming the missing property, and the corrected call runs on the next step', async () => {
    const { ctx, runs } = await createRegistry()
    const { model, prompts } = scriptedModel([
      [toolCall('call_1', 'read_file', { limit: 3 })],
      [toolCall('call_2', 'read_file', { path: 'a.txt', limit: 3 })],
    ])
    const result = await generateText({ model, tools: aiSdkTools(ctx.tools), prompt: 'read a.txt', stopWhen: stepCountIs(5) })

    expect(prompts).toHaveLength(3)
    const [invalid] = toolResultsIn(prompts[1]) as { toolCallId: string; output: { type: string; value: string } }[]
    expect(invalid).toMatchObject({ toolCallId: 'call_1', output: { type: 'error-text' } })
    expect(invalid?.output.value).toMatch(/^Error \(INVALID_ARGS\)/)
    expect(invalid?.output.value).toContain('path')
    expect(toolResultsIn(prompts[2])).toEqual([{ toolCallId: 'call_2', toolName: 'read_file', output: { type: 'text', value: 'contents of a.txt' } }])
    // The SDK keeps the whole conversation: step 3 still holds the failed call's result before the corrected one.
    expect(prompts[2]?.filter((message) => message.role === 'tool')).toHaveLength(2)
    expect(runs).toEqual([{ name: 'read_file', callId: 'call_2', args: { path: 'a.txt', limit: 3 } }])
    expect(result.steps.map((step) => step.finishReason)).toEqual(['tool-calls', 'tool-calls', 'stop'])
  })

  it('a parallel step of concurrency-safe calls: both run at once, with the SDK tool call ids as call ids, results in the model order', async () => {
    const { ctx } = await createRegistry()
    const started: string[] = []
    let release: () => void = () => {}
    const bothStarted = new Promise<void>((resolve) => (release = resolve))
    ctx.tools.register({
      name: 'slow_read',
      description: 'Read slowly.',
      concurrencySafe: true,
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
      execute: async (args, exec) => {
        started.push(exec.callId)
        if (started.length === 2) release()
        // Serial execution would wait here forever for the second call; the fallback turns that into a failure.
        let timer: ReturnType<typeof setTimeout> | undefined
        const alone = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, 20_000, false)))
        const overlapped = await Promise.race([bothStarted.then(() => true), alone])
        clearTimeout(timer)
        return [{ type: 'text', text: `${(args as { path: string }).path}: ${overlapped ? 'overlapped' : 'ran alone'}` }]
      },
    })
    const { model, prompts } = scriptedModel([[toolCall('call_b', 'slow_read', { path: 'b' }), toolCall('call_a', 'slow_read', { path: 'a' })]])
    await generateText({ model, tools: aiSdkTools(ctx.tools), prompt: 'read both', stopWhen: stepCountIs(3) })

    expect([...started].sort()).toEqual(['call_a', 'call_b'])
    expect(toolResultsIn(prompts[1])).toEqual([
      { toolCallId: 'call_b', toolName: 'slow_read', output: { type: 'text', value: 'b: overlapped' } },
      { toolCallId: 'call_a', toolName: 'slow_read', output: { type: 'text', value: 'a: overlapped' } },
    ])
  })

  it("the agent's view applies: a restricted tool is not offered, and its guard denies the agent's calls", async () => {
    const { ctx, runs } = await createRegistry()
    const agent = { id: 'helper' }
    const scope = ctx.tools.scope(agent)
    scope.restrict({ deny: ['delete_file'] })
    scope.guard((exec) => (exec.name === 'read_file' && (exec.arguments as { path: string }).path.startsWith('/etc') ? 'No system files.' : undefined))
    const tools = aiSdkTools(ctx.tools, { agent })
    expect(Object.keys(tools)).toEqual(['read_file'])

    const { model, prompts } = scriptedModel([[toolCall('call_etc', 'read_file', { path: '/etc/passwd' })]])
    await generateText({ model, tools, prompt: 'read', stopWhen: stepCountIs(3) })
    expect(model.doGenerateCalls[0]?.tools?.map((tool) => tool.name)).toEqual(['read_file'])
    const [guarded] = toolResultsIn(prompts[1]) as { output: { type: string; value: string } }[]
    expect(guarded?.output.type).toBe('error-text')
    expect(guarded?.output.value).toContain('No system files.')
    expect(runs).toEqual([])
  })

  it('a tool removed after the set was built is refused by the registry (UNKNOWN_TOOL), not run from the stale set', async () => {
    const { ctx } = await createRegistry()
    let ran = false
    const unregister = ctx.tools.register({
      name: 'drop_table',
      description: 'Drop a table.',
      parameters: { type: 'object', properties: {} },
      execute: async () => ((ran = true), [{ type: 'text' as const, text: 'dropped' }]),
    })
    const tools = aiSdkTools(ctx.tools)
    expect(Object.keys(tools)).toContain('drop_table')
    unregister()
    const { model, prompts } = scriptedModel([[toolCall('call_drop', 'drop_table', {})]])
    await generateText({ model, tools, prompt: 'drop it', stopWhen: stepCountIs(3) })
    const [refused] = toolResultsIn(prompts[1]) as { output: { type: string; value: string } }[]
    expect(refused?.output.type).toBe('error-text')
    expect(refused?.output.value).toMatch(/^Error \(UNKNOWN_TOOL\)/)
    expect(ran).toBe(false)
  })

  it('a call the SDK cannot parse (unknown tool, argument text not JSON) is answered by the SDK and never reaches the registry', async () => {
    const { ctx } = await createRegistry()
    const seen: string[] = []
    ctx.tools.on('tools/result', (exec) => void seen.push(exec.callId))
    const { model, prompts } = scriptedModel([[toolCall('call_x', 'no_such_tool', {}), toolCall('call_y', 'read_file', '{"path": "a.txt"')]])
    await generateText({ model, tools: aiSdkTools(ctx.tools), prompt: 'go', stopWhen: stepCountIs(3) })
    const results = toolResultsIn(prompts[1]) as { toolCallId: string; output: { type: string } }[]
    expect(results.map((result) => [result.toolCallId, result.output.type])).toEqual([
      ['call_x', 'error-text'],
      ['call_y', 'error-text'],
    ])
    expect(seen).toEqual([])
  })

  it("the SDK's abort signal reaches the tool body", async () => {
    const { ctx } = await createRegistry()
    const controller = new AbortController()
    let sawAbort = false
    ctx.tools.register({
      name: 'wait',
      description: 'Wait until cancelled.',
      parameters: { type: 'object', properties: {} },
      execute: (_args, exec) =>
        new Promise((resolve) => {
          exec.signal.addEventListener('abort', () => ((sawAbort = true), resolve([{ type: 'text', text: 'stopped' }])), { once: true })
          controller.abort(new Error('user pressed Ctrl-C'))
        }),
    })
    const { model } = scriptedModel([[toolCall('call_w', 'wait', {})]])
    await generateText({ model, tools: aiSdkTools(ctx.tools), prompt: 'wait', stopWhen: stepCountIs(3), abortSignal: controller.signal }).catch(() => undefined)
    expect(sawAbort).toBe(true)
  })

  it('an image result reaches the model as image-data content', async () => {
    const { ctx } = await createRegistry()
    ctx.tools.register({
      name: 'screenshot',
      description: 'Take a screenshot.',
      parameters: { type: 'object', properties: {} },
      execute: async () => [{ type: 'text' as const, text: 'the screen' }, { type: 'image' as const, data: 'iVBORw0KGgo=', mimeType: 'image/png' }],
    })
    const { model, prompts } = scriptedModel([[toolCall('call_s', 'screenshot', {})]])
    await generateText({ model, tools: aiSdkTools(ctx.tools), prompt: 'look', stopWhen: stepCountIs(3) })
    expect(toolResultsIn(prompts[1])).toEqual([
      {
        toolCallId: 'call_s',
        toolName: 'screenshot',
        output: { type: 'content', value: [{ type: 'text', text: 'the screen' }, { type: 'image-data', data: 'iVBORw0KGgo=', mediaType: 'image/png' }] },
      },
    ])
  })

  it('streamText takes the same set: a denial and a corrected call in the streaming loop', async () => {
    const { ctx, runs } = await createRegistry()
    ctx.tools.on('tools/pre-execute', (exec, next) => (exec.name === 'delete_file' ? { kind: 'deny', reason: 'No deleting.' } : next()))
    const { model, prompts } = scriptedModel([
      [toolCall('call_del', 'delete_file', { path: 'a.txt' }), toolCall('call_bad', 'read_file', {})],
      [toolCall('call_ok', 'read_file', { path: 'a.txt' })],
    ])
    const stream = streamText({ model, tools: aiSdkTools(ctx.tools), prompt: 'go', stopWhen: stepCountIs(5) })
    expect(await stream.text).toBe('done')
    const second = toolResultsIn(prompts[1]) as { toolCallId: string; output: { type: string; value: string } }[]
    expect(second.map((result) => [result.toolCallId, result.output.type, result.output.value.split(':')[0]])).toEqual([
      ['call_del', 'error-text', 'Error (DENIED)'],
      ['call_bad', 'error-text', 'Error (INVALID_ARGS)'],
    ])
    expect(toolResultsIn(prompts[2])).toEqual([{ toolCallId: 'call_ok', toolName: 'read_file', output: { type: 'text', value: 'contents of a.txt' } }])
    expect(runs).toEqual([{ name: 'read_file', callId: 'call_ok', args: { path: 'a.txt' } }])
  })
})

/** Registers `name`, whose body logs its start and end around a short wait and answers with its `id` argument. */
function registerLogged(ctx: Context, name: string, concurrencySafe: boolean, log: string[]): void {
  ctx.tools.register({
    name,
    description: `${name}, logged.`,
    concurrencySafe,
    parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    execute: async (args) => {
      const { id } = args as { id: string }
      log.push(`start ${id}`)
      await new Promise((resolve) => setTimeout(resolve, 15))
      log.push(`end ${id}`)
      return [{ type: 'text', text: id }]
    },
  })
}

describe('the AI SDK starts every call of a step at once: calls that are not concurrency-safe are serialized', () => {
  it('two non-concurrency-safe calls in one step never overlap, and run in the model order', async () => {
    const { ctx } = await createRegistry()
    const log: string[] = []
    registerLogged(ctx, 'remove', false, log)
    const { model, prompts } = scriptedModel([[toolCall('c1', 'remove', { id: 'd1' }), toolCall('c2', 'remove', { id: 'd2' })]])
    await generateText({ model, tools: aiSdkTools(ctx.tools), prompt: 'go', stopWhen: stepCountIs(3) })
    expect(log).toEqual(['start d1', 'end d1', 'start d2', 'end d2'])
    expect(toolResultsIn(prompts[1])).toEqual([
      { toolCallId: 'c1', toolName: 'remove', output: { type: 'text', value: 'd1' } },
      { toolCallId: 'c2', toolName: 'remove', output: { type: 'text', value: 'd2' } },
    ])
  })

  it("executeStep's rule: safe calls run together, a non-safe call waits for all before it and holds back all after it (a delete never races a read)", async () => {
    const { ctx } = await createRegistry()
    const log: string[] = []
    registerLogged(ctx, 'look', true, log)
    registerLogged(ctx, 'remove', false, log)
    const { model } = scriptedModel([
      [toolCall('c1', 'look', { id: 'r1' }), toolCall('c2', 'look', { id: 'r2' }), toolCall('c3', 'remove', { id: 'd' }), toolCall('c4', 'look', { id: 'r3' }), toolCall('c5', 'look', { id: 'r4' })],
    ])
    await generateText({ model, tools: aiSdkTools(ctx.tools), prompt: 'go', stopWhen: stepCountIs(3) })
    const at = (entry: string): number => log.indexOf(entry)
    expect(log.slice(0, 2)).toEqual(['start r1', 'start r2'])
    expect(at('start d')).toBeGreaterThan(Math.max(at('end r1'), at('end r2')))
    expect(at('end d')).toBe(at('start d') + 1)
    expect(log.slice(at('end d') + 1, at('end d') + 3)).toEqual(['start r3', 'start r4'])
    expect(log).toHaveLength(10)
  })

  it('streamText, which starts each call as it streams in, follows the same rule', async () => {
    const { ctx } = await createRegistry()
    const log: string[] = []
    registerLogged(ctx, 'remove', false, log)
    registerLogged(ctx, 'look', true, log)
    const { model } = scriptedModel([[toolCall('c1', 'remove', { id: 'd1' }), toolCall('c2', 'look', { id: 'r1' }), toolCall('c3', 'look', { id: 'r2' }), toolCall('c4', 'remove', { id: 'd2' })]])
    const stream = streamText({ model, tools: aiSdkTools(ctx.tools), prompt: 'go', stopWhen: stepCountIs(3) })
    expect(await stream.text).toBe('done')
    expect(log.slice(0, 4)).toEqual(['start d1', 'end d1', 'start r1', 'start r2'])
    expect(log.slice(6)).toEqual(['start d2', 'end d2'])
  })

  it('a source without executionMode (not a registry) has every call run alone', async () => {
    const { ctx } = await createRegistry()
    const log: string[] = []
    registerLogged(ctx, 'look', true, log)
    const source = { schemas: ctx.tools.schemas, execute: (input: Parameters<typeof ctx.tools.execute>[0]) => ctx.tools.execute(input) }
    const { model } = scriptedModel([[toolCall('c1', 'look', { id: 'r1' }), toolCall('c2', 'look', { id: 'r2' })]])
    await generateText({ model, tools: aiSdkTools(source), prompt: 'go', stopWhen: stepCountIs(3) })
    expect(log).toEqual(['start r1', 'end r1', 'start r2', 'end r2'])
  })
})

describe('approval and agent on the AI SDK path: the registry asks, the SDK never does', () => {
  it('an ask for a call without an agent is denied APPROVAL_NO_AGENT; the set sets no needsApproval', async () => {
    const { ctx, runs } = await createRegistry()
    ctx.tools.on('tools/pre-execute', (_exec, _next) => ({ kind: 'ask', reason: 'deleting needs a person' }))
    const tools = aiSdkTools(ctx.tools)
    expect(Object.values(tools).map((tool) => tool.needsApproval)).toEqual([undefined, undefined])
    const { model, prompts } = scriptedModel([[toolCall('c1', 'delete_file', { path: 'a.txt' })]])
    await generateText({ model, tools, prompt: 'go', stopWhen: stepCountIs(3) })
    const [answer] = toolResultsIn(prompts[1]) as { output: { type: string; value: string } }[]
    expect(answer?.output.type).toBe('error-text')
    expect(answer?.output.value).toMatch(/^Error \(APPROVAL_NO_AGENT\)/)
    expect(runs).toEqual([])
  })

  it("with { agent }, the toolApproval service is asked for that agent and the SDK's call id; its answer decides", async () => {
    const { ctx, runs } = await createRegistry()
    const agent = { id: 'main' }
    const asked: { agent: unknown; callId: string; reason: string | undefined }[] = []
    ctx.provide('toolApproval', {
      requestApproval: async (request: ToolApprovalRequest): Promise<ToolApprovalOutcome> => {
        asked.push({ agent: request.agent, callId: request.execution.callId, reason: request.reason })
        return { outcome: request.execution.callId === 'c1' ? 'allowed-once' : 'rejected' }
      },
    })
    ctx.tools.on('tools/pre-execute', (exec, next) => (exec.name === 'delete_file' ? { kind: 'ask', reason: 'deleting needs a person' } : next()))
    const { model, prompts } = scriptedModel([[toolCall('c1', 'delete_file', { path: 'a.txt' }), toolCall('c2', 'delete_file', { path: 'b.txt' })]])
    await generateText({ model, tools: aiSdkTools(ctx.tools, { agent }), prompt: 'go', stopWhen: stepCountIs(3) })
    expect(asked).toEqual([
      { agent, callId: 'c1', reason: 'deleting needs a person' },
      { agent, callId: 'c2', reason: 'deleting needs a person' },
    ])
    expect(runs).toEqual([{ name: 'delete_file', callId: 'c1', args: { path: 'a.txt' } }])
    const answers = toolResultsIn(prompts[1]) as { output: { type: string; value: string } }[]
    expect(answers.map((answer) => answer.output.type)).toEqual(['text', 'error-text'])
    expect(answers[1]?.output.value).toMatch(/^Error \(APPROVAL_REJECTED\)/)
  })
})

describe('empty results never reach the model as empty text through the AI SDK', () => {
  it("a tool that returns '' or whitespace is (no output); an error with blank text keeps its Error (CODE) line", async () => {
    const { ctx } = await createRegistry()
    ctx.tools.register({
      name: 'quiet',
      description: 'Say nothing.',
      concurrencySafe: true,
      parameters: { type: 'object', properties: { how: { type: 'string' } }, required: ['how'] },
      execute: async (args) => {
        const { how } = args as { how: string }
        if (how === 'fail') throw new ToolContentError('TOOL_FAILED', 'failed quietly', { content: [{ type: 'text', text: ' \n' }] })
        return how === 'empty' ? [{ type: 'text', text: '' }] : [{ type: 'text', text: '   \n' }, { type: 'text', text: '' }]
      },
    })
    const { model, prompts } = scriptedModel([[toolCall('c1', 'quiet', { how: 'empty' }), toolCall('c2', 'quiet', { how: 'blank' }), toolCall('c3', 'quiet', { how: 'fail' })]])
    const result = await generateText({ model, tools: aiSdkTools(ctx.tools), prompt: 'go', stopWhen: stepCountIs(3) })
    expect((toolResultsIn(prompts[1]) as { output: unknown }[]).map((entry) => entry.output)).toEqual([
      { type: 'text', value: '(no output)' },
      { type: 'text', value: '(no output)' },
      { type: 'error-text', value: 'Error (TOOL_FAILED): the tool call failed.' },
    ])
    // The app's copy is the result as the tool gave it.
    const outputs = result.steps[0]?.toolResults.map((entry) => entry.output) ?? []
    expect(outputs.every(isAiSdkToolOutput)).toBe(true)
    expect(outputs.filter(isAiSdkToolOutput).map((output) => output.error?.code)).toEqual([undefined, undefined, 'TOOL_FAILED'])
  })
})
