import type { ToolStepResult } from '@dsh/tools-registry'
import { GoogleGenAI, type Content } from '@google/genai'
import type { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { geminiTools, toGeminiContent } from './gemini/index.js'
import { loopPrompt, useLoopHarness } from './test-support/loop-harness.js'
import { denyReason, fixture, readNote } from './test-support/loop-tools.js'

const path = '/v1beta/models/gemini-2.5-flash:generateContent'
const loop = useLoopHarness()

/** Model call, our parser, executeStep, our functionResponse content, until the model stops calling. */
async function generateLoop(gemini: GoogleGenAI, ctx: Context) {
  const tools = geminiTools(ctx.tools.schemas())
  const contents: Content[] = [{ role: 'user', parts: [{ text: loopPrompt }] }]
  const steps: ToolStepResult[] = []
  for (let turn = 0; turn < 4; turn++) {
    const response = await gemini.models.generateContent({ model: 'gemini-2.5-flash', contents, config: { tools: tools.tools } })
    const content = response.candidates?.[0]?.content
    if (content === undefined) throw new Error('no candidate')
    contents.push(content)
    const calls = tools.parseCalls(content.parts ?? [])
    if (calls.length === 0) return { tools, steps, response }
    const step = await ctx.tools.executeStep(calls)
    steps.push(step)
    contents.push(toGeminiContent(step.results, calls, { additionalContext: step.additionalContext }))
  }
  throw new Error('the loop did not stop')
}

describe('the @google/genai SDK drives a two-step generateContent loop through executeStep', () => {
  it('sends parametersJsonSchema declarations, then every functionResponse in call order, then the context', async () => {
    const server = await loop.serve([
      { path, body: fixture('gemini-function-calls') },
      { path, body: fixture('gemini-final') },
    ])
    const gemini = new GoogleGenAI({ apiKey: 'test-key', apiVersion: 'v1beta', httpOptions: { baseUrl: server.url } })
    const { tools, steps, response } = await generateLoop(gemini, loop.world.ctx)
    expect(server.problems).toEqual([])
    expect(response.text).toBe('a.txt says hello. My call for b.txt had a number for its path, and deleting a.txt was denied.')
    expect(loop.world.deleted).toEqual([])

    const [first, second] = server.requests.map((request) => request.body as Record<string, unknown>)
    expect(server.requests[0]?.headers['x-goog-api-key']).toBe('test-key')
    expect(first?.tools).toEqual(tools.tools)
    expect(first?.tools).toMatchObject([{ functionDeclarations: [{ name: 'read_file', parametersJsonSchema: { type: 'object' } }, { name: 'delete_file' }] }])

    const sent = second?.contents as Array<{ role: string; parts: Array<Record<string, unknown>> }>
    expect(sent.map((c) => c.role)).toEqual(['user', 'model', 'user'])
    const parts = sent[2]?.parts ?? []
    expect(parts.map((part) => Object.keys(part))).toEqual([['functionResponse'], ['functionResponse'], ['functionResponse'], ['text']])
    const responses = parts.slice(0, 3).map((part) => part.functionResponse as { name: string; response: Record<string, unknown> })
    expect(responses.map((r) => r.name)).toEqual(['read_file', 'read_file', 'delete_file'])
    // Gemini sent no call ids, so none is sent back (the ids the parser made are ours, not Gemini's).
    expect(responses.map((r) => 'id' in r)).toEqual([false, false, false])
    expect(JSON.stringify(responses[0]?.response.output)).toContain('a.txt: hello')
    expect(responses.map((r) => 'error' in r.response)).toEqual([false, true, true])
    expect(JSON.stringify(responses[1]?.response.error)).toContain('path')
    expect(JSON.stringify(responses[2]?.response.error)).toContain(denyReason)
    expect(String(parts[3]?.text)).toContain(readNote)
    expect(steps[0]?.results.map((result) => result.error?.code)).toEqual([undefined, 'INVALID_ARGS', 'DENIED'])
  })

  it('sends each call id back on its functionResponse when Gemini sent ids', async () => {
    const server = await loop.serve([
      { path, body: fixture('gemini-function-calls-with-ids') },
      { path, body: fixture('gemini-final') },
    ])
    const gemini = new GoogleGenAI({ apiKey: 'test-key', apiVersion: 'v1beta', httpOptions: { baseUrl: server.url } })
    const { steps } = await generateLoop(gemini, loop.world.ctx)
    expect(server.problems).toEqual([])
    const sent = (server.requests[1]?.body as { contents: Array<{ parts: Array<Record<string, unknown>> }> } | undefined)?.contents ?? []
    const responses = (sent[2]?.parts ?? []).slice(0, 3).map((part) => part.functionResponse as { id?: string; name: string })
    expect(responses.map((r) => [r.id, r.name])).toEqual([['fc-read-a', 'read_file'], ['fc-read-b', 'read_file'], ['fc-delete-a', 'delete_file']])
    expect(steps[0]?.results.map((result) => result.callId)).toEqual(['fc-read-a', 'fc-read-b', 'fc-delete-a'])
  })
})
