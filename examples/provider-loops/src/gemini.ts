// An agent loop with the official `@google/genai` SDK (generateContent): model call → executeStep → contents →
// repeat. `npm run example:gemini` from the repository root; uses GEMINI_API_KEY when set (GEMINI_MODEL picks the
// model), else replays recorded responses from a local server. Ctrl-C cancels the running step.
import { geminiTools, toGeminiContent } from '@dsh/tools-providers/gemini'
import { GoogleGenAI, type Content } from '@google/genai'
import { geminiReplies } from './replies.js'
import { printStep, runExample } from './run.js'

await runExample('GEMINI_API_KEY', geminiReplies, async ({ ctx, task, apiKey, baseURL, signal, maxSteps }) => {
  const client = new GoogleGenAI(baseURL === undefined ? { apiKey } : { apiKey, apiVersion: 'v1beta', httpOptions: { baseUrl: baseURL } })
  const model = process.env['GEMINI_MODEL'] ?? 'gemini-2.5-flash'
  // Full JSON Schema in parametersJsonSchema (geminiLegacyTools sends the OpenAPI subset instead).
  const tools = geminiTools(ctx.tools.schemas())
  const contents: Content[] = [{ role: 'user', parts: [{ text: task }] }]

  for (let step = 1; step <= maxSteps; step++) {
    const response = await client.models.generateContent({ model, contents, config: { tools: tools.tools, abortSignal: signal } })
    const content = response.candidates?.[0]?.content
    if (content === undefined) throw new Error(`the model sent no content (${response.candidates?.[0]?.finishReason ?? 'no candidate'})`)
    contents.push(content)

    // Every functionCall part, in order; Gemini may send no ids, so the parser makes them.
    const calls = tools.parseCalls(content.parts ?? [])
    if (calls.length === 0) {
      console.log(`assistant: ${response.text ?? ''}`)
      return
    }
    // One result per call, in the model's order, whatever happens (a denial, invalid arguments, Ctrl-C).
    const { results, additionalContext } = await ctx.tools.executeStep(calls, { signal })
    printStep(step, calls, results, additionalContext)
    // ONE user content: a functionResponse per call (matched by name and id), then the additional context.
    contents.push(toGeminiContent(results, calls, { additionalContext }))
  }
  console.log(`stopped after ${maxSteps} steps without a final answer`)
})
