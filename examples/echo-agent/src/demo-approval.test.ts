import { createTestAgent, createToolContext, createToolExecution, expectCleanUnload } from '@dsh/tools-testing'
import { describe, expect, it, vi } from 'vitest'
import { DemoApproval } from './demo-approval.js'

const tool = {
  name: 'deploy',
  description: 'Pretend to deploy.',
  parameters: { type: 'object' as const },
  async execute() {
    return [{ type: 'text' as const, text: 'deployed' }]
  },
}

describe('DemoApproval', () => {
  it('is the toolApproval service: approves once by default and reports each decision', async () => {
    const onDecision = vi.fn()
    await using t = await createToolContext({ plugins: [[DemoApproval, { onDecision }]] })
    t.tools.register(tool)
    t.tools.on('tools/pre-execute', () => ({ kind: 'ask', reason: 'it deploys' }))
    const agent = createTestAgent('ops')
    const result = await t.tools.execute({ callId: 'c1', name: 'deploy', arguments: {}, agent })
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'deployed' }] })
    expect(onDecision).toHaveBeenCalledTimes(1)
    expect(onDecision.mock.calls[0]?.[0]).toMatchObject({ reason: 'it deploys', agent, tool: { name: 'deploy' } })
    expect(onDecision.mock.calls[0]?.[1]).toEqual({ outcome: 'allowed-once' })
  })

  it('answers cancelled for a request whose signal has fired, without asking', async () => {
    const decide = vi.fn()
    await using t = await createToolContext({ plugins: [[DemoApproval, { decide }]] })
    const service = t.ctx.get('toolApproval')
    const controller = new AbortController()
    controller.abort()
    const outcome = await service?.requestApproval({
      execution: createToolExecution({ name: 'deploy', callId: 'c1', signal: controller.signal }),
      agent: createTestAgent('ops'),
      tool: { name: 'deploy', description: '', parameters: { type: 'object' } },
      signal: controller.signal,
    })
    expect(outcome).toEqual({ outcome: 'cancelled' })
    expect(decide).not.toHaveBeenCalled()
  })

  it('leaves nothing behind when unloaded', async () => {
    const report = await expectCleanUnload(DemoApproval)
    expect(report.footprint.services).toEqual(['toolApproval'])
  })
})
