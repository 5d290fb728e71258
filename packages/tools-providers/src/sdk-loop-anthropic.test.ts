import Anthropic from '@anthropic-ai/sdk'
import type { ToolStepResult } from '@dsh/tools-registry'
import type { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { anthropicTools, toAnthropicMessage } from './anthropic/index.js'
import { loopPrompt, useLoopHarness } from './test-support/loop-harness.js'
import { denyReason, fixture, readNote, textOf } from './test-support/loop-tools.js'
import type { ReplayResponse } from './test-support/replay-server.js'

const loop = useLoopHarness()

async function client(script: readonly ReplayResponse[]): Promise<Anthropic> {
  const server = await loop.serve(script)
  return new Anthropic({ apiKey: 'test-key', baseURL: server.url, maxRetries: 0 })
}

/** Model call, our parser, executeStep, our tool_result message, until the model stops calling. */
async function messagesLoop(anthropic: Anthropic, ctx: Context) {
  const tools = anthropicTools(ctx.tools.schemas())
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: loopPrompt }]
  const steps: ToolStepResult[] = []
  for (let turn = 0; turn < 4; turn++) {
    const reply = await anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 1024, messages, tools: tools.tools })
    messages.push({ role: 'assistant', content: reply.content })
    const calls = tools.parseCalls(reply.content)
    if (calls.length === 0) return { tools, steps, reply }
    const step = await ctx.tools.executeStep(calls)
    steps.push(step)
    messages.push(toAnthropicMessage(step.results, { additionalContext: step.additionalContext }))
  }
  throw new Error('the loop did not stop')
}

describe('the Anthropic SDK drives a two-step Messages loop through executeStep', () => {
  it('sends the tool list, then one user message: every tool_result first, in call order, then the context', async () => {
    const anthropic = await client([
      { path: '/v1/messages', body: fixture('anthropic-tool-use') },
      { path: '/v1/messages', body: fixture('anthropic-final') },
    ])
    const { tools, steps, reply } = await messagesLoop(anthropic, loop.world.ctx)
    expect(loop.server.problems).toEqual([])
    expect(reply.stop_reason).toBe('end_turn')
    expect(textOf(reply.content)).toBe('a.txt says hello. My call for b.txt had a number for its path, and deleting a.txt was denied.')
    expect(loop.world.deleted).toEqual([])

    const [first, second] = loop.server.requests.map((request) => request.body as Record<string, unknown>)
    expect(first?.tools).toEqual(tools.tools)
    expect(first?.tools).toMatchObject([{ name: 'read_file', input_schema: { type: 'object' } }, { name: 'delete_file' }])
    expect(first?.messages).toEqual([{ role: 'user', content: loopPrompt }])

    const sent = second?.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user'])
    const ids = ['toolu_01A09q90qw90lq917835lq9', 'toolu_01B7xKzLmQ2nW4pR9sT1uVyZ', 'toolu_01C3hJ5kL8mN0pQ2rS4tU6vW']
    expect(sent[1]?.content.filter((block) => block.type === 'tool_use').map((block) => block.id)).toEqual(ids)
    const results = sent[2]?.content ?? []
    expect(results.map((block) => block.type)).toEqual(['tool_result', 'tool_result', 'tool_result', 'text'])
    expect(results.slice(0, 3).map((block) => block.tool_use_id)).toEqual(ids)
    expect(results.slice(0, 3).map((block) => block.is_error === true)).toEqual([false, true, true])
    expect(textOf(results[0]?.content)).toContain('a.txt: hello')
    // The call Anthropic sent with a number for the path is the registry's validation error, fed back to the model.
    expect(textOf(results[1]?.content)).toContain('path')
    expect(textOf(results[2]?.content)).toContain(denyReason)
    expect(results[3]?.text).toContain(readNote)
    expect(steps[0]?.results.map((result) => result.error?.code)).toEqual([undefined, 'INVALID_ARGS', 'DENIED'])
  })

  it('stops on a refusal (stop_reason "refusal", no content) without running anything', async () => {
    const anthropic = await client([{ path: '/v1/messages', body: fixture('anthropic-refusal') }])
    const { steps, reply } = await messagesLoop(anthropic, loop.world.ctx)
    expect(loop.server.requests).toHaveLength(1)
    expect(reply.stop_reason).toBe('refusal')
    expect(steps).toEqual([])
  })
})
