// An agent loop with the official `openai` SDK (Chat Completions): model call → executeStep → messages → repeat.
// `npm run example:openai` from the repository root; uses OPENAI_API_KEY when set (OPENAI_MODEL picks the model),
// else replays recorded responses from a local server. Ctrl-C cancels the running step.
import { openaiTools, toOpenAIChatMessages } from '@dsh/tools-providers/openai'
import OpenAI from 'openai'
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import { openaiReplies } from './replies.js'
import { printStep, runExample } from './run.js'

await runExample('OPENAI_API_KEY', openaiReplies, async ({ ctx, task, apiKey, baseURL, signal, maxSteps }) => {
  const client = new OpenAI(baseURL === undefined ? { apiKey } : { apiKey, baseURL: `${baseURL}/v1` })
  const model = process.env['OPENAI_MODEL'] ?? 'gpt-4.1-mini'
  // Strict mode: the model must send every property; the nulls it sends for omitted ones are removed again.
  const tools = openaiTools(ctx.tools.schemas(), { profile: 'openai-strict' })
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: task }]

  for (let step = 1; step <= maxSteps; step++) {
    const completion = await client.chat.completions.create({ model, messages, tools: tools.chat }, { signal })
    const message = completion.choices[0]?.message
    if (message === undefined) throw new Error('the model sent no choice')
    messages.push(message)

    // Arguments that are not one JSON object become error results here; everything else goes to the pipeline.
    const calls = tools.parseChatCalls(message.tool_calls)
    if (calls.length === 0) {
      console.log(`assistant: ${message.content ?? `(refused) ${message.refusal ?? ''}`}`)
      return
    }
    // One result per call, in the model's order, whatever happens (a denial, invalid arguments, Ctrl-C).
    const { results, additionalContext } = await ctx.tools.executeStep(calls, { signal })
    printStep(step, calls, results, additionalContext)
    // One role: 'tool' message per call, then the policy's additional context after all of them.
    messages.push(...toOpenAIChatMessages(results, { additionalContext }))
  }
  console.log(`stopped after ${maxSteps} steps without a final answer`)
})
