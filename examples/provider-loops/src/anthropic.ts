// An agent loop with the official `@anthropic-ai/sdk` (Messages): model call → executeStep → messages → repeat.
// `npm run example:anthropic` from the repository root; uses ANTHROPIC_API_KEY when set (ANTHROPIC_MODEL picks the
// model), else replays recorded responses from a local server. Ctrl-C cancels the running step.
import Anthropic from '@anthropic-ai/sdk'
import { anthropicTools, toAnthropicMessage } from '@dsh/tools-providers/anthropic'
import { anthropicReplies } from './replies.js'
import { printStep, runExample } from './run.js'

await runExample('ANTHROPIC_API_KEY', anthropicReplies, async ({ ctx, task, apiKey, baseURL, signal, maxSteps }) => {
  const client = new Anthropic(baseURL === undefined ? { apiKey } : { apiKey, baseURL })
  const model = process.env['ANTHROPIC_MODEL'] ?? 'claude-sonnet-4-5'
  const tools = anthropicTools(ctx.tools.schemas())
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: task }]

  for (let step = 1; step <= maxSteps; step++) {
    const reply = await client.messages.create({ model, max_tokens: 1024, messages, tools: tools.tools }, { signal })
    messages.push({ role: 'assistant', content: reply.content })

    // Every tool_use block, in order; text blocks are skipped.
    const calls = tools.parseCalls(reply.content)
    if (calls.length === 0) {
      const text = reply.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
      console.log(`assistant: ${reply.stop_reason === 'refusal' ? '(refused)' : text}`)
      return
    }
    // One result per call, in the model's order, whatever happens (a denial, invalid arguments, Ctrl-C).
    const { results, additionalContext } = await ctx.tools.executeStep(calls, { signal })
    printStep(step, calls, results, additionalContext)
    // ONE user message: every tool_result first (is_error on failures), then the additional context.
    messages.push(toAnthropicMessage(results, { additionalContext }))
  }
  console.log(`stopped after ${maxSteps} steps without a final answer`)
})
