// The approval stage: an `ask` goes to the optional approval service after the guards; only allowed-once proceeds,
// and then the guards run once more.
import type { ToolApprovalOutcome, ToolApprovalRequest, ToolApprovalService } from '@dsh/tools-core'
import { Service, type Context } from 'cordis'
import { describe, expect, it, vi } from 'vitest'
import type { ToolCallApprovalRequest, ToolCallApprover } from './execute-options.js'
import { agent, call, createHarness, textOf, tool, type Harness } from './test-kit.js'

async function askingHarness(answer?: ToolApprovalService['requestApproval']): Promise<Harness & { bash: ReturnType<typeof tool> }> {
  const harness = await createHarness()
  const bash = tool('bash')
  harness.tools.register(bash)
  harness.ctx.on('tools/pre-execute', () => ({ kind: 'ask', reason: 'bash can change files' }))
  if (answer !== undefined) harness.ctx.provide('toolApproval', { requestApproval: answer })
  return { ...harness, bash }
}

describe('ask resolves through the optional approval service', () => {
  it('allowed-once lets the call proceed', async () => {
    const { tools, bash } = await askingHarness(async () => ({ outcome: 'allowed-once' }))
    const result = await tools.execute(call('bash', { command: 'ls' }, { agent: agent('alice') }))
    expect(result.isError).toBe(false)
    expect(bash.calls).toEqual([{ command: 'ls' }])
  })

  it('the request carries the frozen execution, the agent, the model-facing schema, the reason and a signal', async () => {
    let request: ToolApprovalRequest | undefined
    const { tools } = await askingHarness(async (received) => ((request = received), { outcome: 'allowed-once' }))
    const alice = agent('alice')
    const controller = new AbortController()
    await tools.execute(call('bash', { command: 'ls' }, { agent: alice, signal: controller.signal }))
    expect(request?.agent).toBe(alice)
    expect(request?.execution.agent).toBe(alice)
    expect(request?.execution.arguments).toEqual({ command: 'ls' })
    expect(Object.isFrozen(request?.execution)).toBe(true)
    expect(request?.tool).toEqual({ name: 'bash', description: 'The bash tool.', parameters: { type: 'object', properties: {} } })
    expect(Object.keys(request?.tool ?? {})).toEqual(['name', 'description', 'parameters'])
    expect(request?.reason).toBe('bash can change files')
    expect(request?.signal).toBe(request?.execution.signal)
    expect(request?.signal).not.toBe(controller.signal)
    expect(Object.isFrozen(request)).toBe(true)
  })

  it.each<[ToolApprovalOutcome, string, string]>([
    [{ outcome: 'rejected', reason: 'not today' }, 'APPROVAL_REJECTED', 'The call to "bash" was rejected: not today. It was not run.'],
    [{ outcome: 'rejected' }, 'APPROVAL_REJECTED', 'The call to "bash" was rejected. It was not run.'],
    [{ outcome: 'cancelled' }, 'APPROVAL_CANCELLED', 'The approval request for the call to "bash" was cancelled. It was not run.'],
    [{ outcome: 'unavailable', reason: 'no terminal' }, 'APPROVAL_UNAVAILABLE', 'Approval for the call to "bash" is unavailable: no terminal. It was not run.'],
  ])('%j becomes a denial with code %s', async (answer, code, text) => {
    const { tools, bash } = await askingHarness(async () => answer)
    const result = await tools.execute(call('bash', {}, { agent: agent('alice') }))
    expect(result.error).toEqual({ name: 'ToolDeniedError', code })
    expect(textOf(result)).toBe(text)
    expect(bash.calls).toEqual([])
  })

  it('no approval service: APPROVAL_NO_SERVICE', async () => {
    const { tools, bash } = await askingHarness()
    const result = await tools.execute(call('bash', {}, { agent: agent('alice') }))
    expect(result.error).toEqual({ name: 'ToolDeniedError', code: 'APPROVAL_NO_SERVICE' })
    expect(textOf(result)).toContain('no approval service is available')
    expect(bash.calls).toEqual([])
  })

  it('no agent: APPROVAL_NO_AGENT, and the service is not asked', async () => {
    const requestApproval = vi.fn(async () => ({ outcome: 'allowed-once' as const }))
    const { tools, bash } = await askingHarness(requestApproval)
    const result = await tools.execute(call('bash'))
    expect(result.error).toEqual({ name: 'ToolDeniedError', code: 'APPROVAL_NO_AGENT' })
    expect(requestApproval).not.toHaveBeenCalled()
    expect(bash.calls).toEqual([])
  })

  it.each([
    ['rejects', () => Promise.reject(new Error('prompt crashed'))],
    ['throws', () => {
      throw new Error('prompt crashed')
    }],
  ])('a service that %s counts as unavailable', async (_label, requestApproval) => {
    const { tools, bash, warnings } = await askingHarness(requestApproval as ToolApprovalService['requestApproval'])
    const result = await tools.execute(call('bash', {}, { agent: agent('alice') }))
    expect(result.error?.code).toBe('APPROVAL_UNAVAILABLE')
    expect(textOf(result)).toContain('prompt crashed')
    expect(bash.calls).toEqual([])
    expect(warnings.some((warning) => warning.includes('prompt crashed'))).toBe(true)
  })

  it.each([undefined, null, 'allowed-once', { outcome: 'allowed-always' }, { outcome: 'ALLOWED-ONCE' }])(
    'an invalid answer (%j) fails closed as unavailable',
    async (answer) => {
      const { tools, bash } = await askingHarness(async () => answer as never)
      const result = await tools.execute(call('bash', {}, { agent: agent('alice') }))
      expect(result.error?.code).toBe('APPROVAL_UNAVAILABLE')
      expect(bash.calls).toEqual([])
    },
  )

  it('a call cancelled while waiting for approval is ABORTED_BEFORE_DISPATCH, without waiting for the answer', async () => {
    let release: () => void = () => undefined
    const { tools, bash } = await askingHarness(
      () => new Promise((resolve) => (release = () => resolve({ outcome: 'allowed-once' }))),
    )
    const controller = new AbortController()
    const pending = tools.execute(call('bash', {}, { agent: agent('alice'), signal: controller.signal }))
    await new Promise((resolve) => setImmediate(resolve))
    controller.abort(new Error('user pressed escape'))
    const result = await pending
    expect(result.error).toEqual({ name: 'ToolAbortedError', code: 'ABORTED_BEFORE_DISPATCH' })
    release()
    await new Promise((resolve) => setImmediate(resolve))
    expect(bash.calls).toEqual([])
  })

  it('the approval service may be a cordis Service named toolApproval, and may come and go', async () => {
    class ApproveEverything extends Service implements ToolApprovalService {
      constructor(ctx: Context) {
        super(ctx, 'toolApproval')
      }
      async requestApproval(): Promise<ToolApprovalOutcome> {
        return { outcome: 'allowed-once' }
      }
    }
    const { ctx, tools } = await askingHarness()
    const alice = agent('alice')
    expect((await tools.execute(call('bash', {}, { agent: alice }))).error?.code).toBe('APPROVAL_NO_SERVICE')
    const fiber = await ctx.plugin(ApproveEverything)
    expect((await tools.execute(call('bash', {}, { agent: alice }))).isError).toBe(false)
    await fiber.dispose()
    expect((await tools.execute(call('bash', {}, { agent: alice }))).error?.code).toBe('APPROVAL_NO_SERVICE')
  })

})

describe('guards come before any person is asked, and once more after a yes', () => {
  it('regression: nobody is asked to approve `rm -rf /` that a guard then denies', async () => {
    const requests: ToolApprovalRequest[] = []
    const { tools, bash } = await askingHarness(async (request) => (requests.push(request), { outcome: 'allowed-once' }))
    tools.guard((exec) => ((exec.arguments as { command?: string }).command === 'rm -rf /' ? 'destructive command' : undefined))
    const result = await tools.execute(call('bash', { command: 'rm -rf /' }, { agent: agent('alice') }))
    expect(result.error).toEqual({ name: 'ToolDeniedError', code: 'GUARD_DENIED' })
    expect(textOf(result)).toBe('The call to "bash" was denied by a guard: destructive command')
    expect(requests).toEqual([])
    expect(bash.calls).toEqual([])
  })

  it('a guard that throws or answers garbage fails closed before anyone is asked', async () => {
    const requests: ToolApprovalRequest[] = []
    const { tools } = await askingHarness(async (request) => (requests.push(request), { outcome: 'allowed-once' }))
    tools.guard(() => 7 as never)
    expect((await tools.execute(call('bash', {}, { agent: agent('alice') }))).error?.code).toBe('INVALID_DECISION')
    expect(requests).toEqual([])
  })

  it('a guard denies before an ask without an agent or without a service is refused', async () => {
    const { tools } = await askingHarness()
    tools.guard(() => 'sandbox forbids bash')
    expect((await tools.execute(call('bash'))).error?.code).toBe('GUARD_DENIED')
    expect((await tools.execute(call('bash', {}, { agent: agent('alice') }))).error?.code).toBe('GUARD_DENIED')
  })

  it('for a granted ask the guards run once more: state that changed while the person decided still denies', async () => {
    let locked = false
    const { tools, bash } = await askingHarness(async () => {
      locked = true // the workspace was locked while the person looked at the request
      return { outcome: 'allowed-once' }
    })
    const checks: boolean[] = []
    tools.guard(() => (checks.push(locked), locked ? 'the workspace is locked' : undefined))
    const result = await tools.execute(call('bash', {}, { agent: agent('alice') }))
    expect(result.error?.code).toBe('GUARD_DENIED')
    expect(textOf(result)).toBe('The call to "bash" was denied by a guard: the workspace is locked')
    expect(checks).toEqual([false, true])
    expect(bash.calls).toEqual([])
  })

  it('a granted ask whose guards pass both times runs once; an allow runs the guards once', async () => {
    const { ctx, tools, bash } = await askingHarness(async () => ({ outcome: 'allowed-once' }))
    let checks = 0
    tools.guard(() => void checks++)
    await tools.execute(call('bash', {}, { agent: agent('alice') }))
    expect(checks).toBe(2)
    expect(bash.calls).toHaveLength(1)
    tools.register(tool('read'))
    ctx.on('tools/pre-execute', (exec, next) => (exec.name === 'read' ? { kind: 'allow' } : next()), { prepend: true })
    checks = 0
    await tools.execute(call('read', {}, { agent: agent('alice') }))
    expect(checks).toBe(1)
  })

  it('a rejected ask runs the guards only once (no second check for a call that will not run)', async () => {
    const { tools } = await askingHarness(async () => ({ outcome: 'rejected', reason: 'no' }))
    let checks = 0
    tools.guard(() => void checks++)
    expect((await tools.execute(call('bash', {}, { agent: agent('alice') }))).error?.code).toBe('APPROVAL_REJECTED')
    expect(checks).toBe(1)
  })
})

describe('a per-call approver (execute options) answers the ask of its call', () => {
  it('is asked instead of the toolApproval service, also for a call without an agent (the caller brings its person)', async () => {
    const requestApproval = vi.fn(async () => ({ outcome: 'rejected' as const }))
    const { tools, bash } = await askingHarness(requestApproval)
    const requests: ToolCallApprovalRequest[] = []
    const approval = (request: ToolCallApprovalRequest): ToolApprovalOutcome => (requests.push(request), { outcome: 'allowed-once' })
    const result = await tools.execute(call('bash', { command: 'ls' }), { approval })
    expect(result.isError).toBe(false)
    expect(bash.calls).toEqual([{ command: 'ls' }])
    expect(requestApproval).not.toHaveBeenCalled()
    expect(requests).toHaveLength(1)
    const [request] = requests
    expect(request?.agent).toBeUndefined()
    expect(request?.reason).toBe('bash can change files')
    expect(request?.tool).toEqual({ name: 'bash', description: 'The bash tool.', parameters: { type: 'object', properties: {} } })
    expect(request?.execution.arguments).toEqual({ command: 'ls' })
    expect(request?.signal).toBe(request?.execution.signal)
    expect(Object.isFrozen(request)).toBe(true)
    // Without the option the same call is refused as before: nobody to ask.
    expect((await tools.execute(call('bash'))).error?.code).toBe('APPROVAL_NO_AGENT')
  })

  it('through a scope too, with the scope agent in the request', async () => {
    const { tools } = await askingHarness()
    const alice = agent('alice')
    let asked: ToolCallApprovalRequest | undefined
    const result = await tools.scope(alice).execute(call('bash'), { approval: (request) => ((asked = request), { outcome: 'allowed-once' }) })
    expect(result.isError).toBe(false)
    expect(asked?.agent).toBe(alice)
  })

  it.each<[string, ToolCallApprover, string, string]>([
    ['rejects', async () => ({ outcome: 'rejected', reason: 'the user declined' }), 'APPROVAL_REJECTED', 'The call to "bash" was rejected: the user declined. It was not run.'],
    ['cancels', () => ({ outcome: 'cancelled' }), 'APPROVAL_CANCELLED', 'The approval request for the call to "bash" was cancelled. It was not run.'],
    ['throws', () => {
      throw new Error('no form')
    }, 'APPROVAL_UNAVAILABLE', `Approval for the call to "bash" could not be obtained (the caller's approver failed: Error: no form). It was not run.`],
    ['rejects its promise', () => Promise.reject(new Error('link down')), 'APPROVAL_UNAVAILABLE', `Approval for the call to "bash" could not be obtained (the caller's approver failed: Error: link down). It was not run.`],
    ['answers garbage', () => 'yes' as never, 'APPROVAL_UNAVAILABLE', 'Approval for the call to "bash" could not be obtained (the approval service gave an invalid answer). It was not run.'],
  ])('an approver that %s denies with %s', async (_label, approval, code, text) => {
    const { tools, bash } = await askingHarness()
    const result = await tools.execute(call('bash'), { approval })
    expect(result.error).toEqual({ name: 'ToolDeniedError', code })
    expect(textOf(result)).toBe(text)
    expect(bash.calls).toEqual([])
  })

  it('is asked only for an ask, after the guards, and the guards run again after its yes', async () => {
    const { ctx, tools, bash } = await askingHarness()
    const approval = vi.fn<ToolCallApprover>(() => ({ outcome: 'allowed-once' }))
    tools.guard((exec) => ((exec.arguments as { command?: string }).command === 'rm -rf /' ? 'destructive' : undefined))
    expect((await tools.execute(call('bash', { command: 'rm -rf /' }), { approval })).error?.code).toBe('GUARD_DENIED')
    expect(approval).not.toHaveBeenCalled()
    tools.register(tool('read'))
    ctx.on('tools/pre-execute', (exec, next) => (exec.name === 'read' ? { kind: 'allow' } : next()), { prepend: true })
    expect((await tools.execute(call('read'), { approval })).isError).toBe(false)
    expect(approval).not.toHaveBeenCalled()
    expect((await tools.execute(call('unknown'), { approval })).error?.code).toBe('UNKNOWN_TOOL')
    expect(approval).not.toHaveBeenCalled()
    expect((await tools.execute(call('bash', { command: 'ls' }), { approval })).isError).toBe(false)
    expect(approval).toHaveBeenCalledTimes(1)
    expect(bash.calls).toEqual([{ command: 'ls' }])
  })

  it('a call cancelled while its approver waits is ABORTED_BEFORE_DISPATCH at once', async () => {
    const { tools, bash } = await askingHarness()
    const controller = new AbortController()
    let seen: AbortSignal | undefined
    const pending = tools.execute(call('bash', {}, { signal: controller.signal }), {
      approval: (request) => ((seen = request.signal), new Promise<ToolApprovalOutcome>(() => {})),
    })
    await new Promise((resolve) => setImmediate(resolve))
    controller.abort()
    expect((await pending).error).toEqual({ name: 'ToolAbortedError', code: 'ABORTED_BEFORE_DISPATCH' })
    expect(seen?.aborted).toBe(true)
    expect(bash.calls).toEqual([])
  })

  it.each([null, 'approve', { approval: 'yes' }, { approval: {} }])('malformed options (%j) are INVALID_CALL, and nothing runs', async (options) => {
    const { tools, bash } = await askingHarness()
    const result = await tools.execute(call('bash'), options as never)
    expect(result.error).toEqual({ name: 'InvalidToolCallError', code: 'INVALID_CALL' })
    expect(textOf(result)).toMatch(/^The tool call is malformed: the execute option/)
    expect(bash.calls).toEqual([])
  })
})
