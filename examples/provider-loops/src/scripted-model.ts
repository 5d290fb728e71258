// The model of the AI SDK example: the SDK's own MockLanguageModelV3 answering from a script, so the example runs
// offline. Step 1 calls list_files, read_file and delete_file at once (as a provider would send them: the input is
// JSON text); step 2 answers. A real model (e.g. openai('gpt-4.1-mini') from @ai-sdk/openai) goes in its place.
import { setTimeout as sleep } from 'node:timers/promises'
import { MockLanguageModelV3 } from 'ai/test'
import { finalAnswer } from './replies.js'
import { replayDelayMs } from './run.js'

// The provider-spec types, read off the mock (`@ai-sdk/provider` is a dependency of `ai`, not of this example).
type GenerateResult = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>
type GeneratedPart = GenerateResult['content'][number]

const usage: GenerateResult['usage'] = {
  inputTokens: { total: 120, noCache: 120, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 60, text: 60, reasoning: undefined },
}

function reply(content: GeneratedPart[]): GenerateResult {
  const unified = content.some((part) => part.type === 'tool-call') ? 'tool-calls' : 'stop'
  return { content, finishReason: { unified, raw: unified }, usage, warnings: [] }
}

const script: readonly GenerateResult[] = [
  reply([
    { type: 'tool-call', toolCallId: 'call_list', toolName: 'list_files', input: '{}' },
    { type: 'tool-call', toolCallId: 'call_read', toolName: 'read_file', input: '{"path":"notes.txt"}' },
    { type: 'tool-call', toolCallId: 'call_delete', toolName: 'delete_file', input: '{"path":"todo.txt"}' },
  ]),
  reply([{ type: 'text', text: finalAnswer }]),
]

/**
 * A mock model that answers its N-th call with the N-th scripted reply. `REPLAY_DELAY_MS` makes it slow, to try
 * Ctrl-C: the wait ends when the SDK's abort signal fires, as a real provider's request would.
 */
export function scriptedModel(): MockLanguageModelV3 {
  let calls = 0
  return new MockLanguageModelV3({
    provider: 'offline',
    modelId: 'scripted',
    doGenerate: async (options) => {
      const delayMs = replayDelayMs()
      if (delayMs > 0) await sleep(delayMs, undefined, options.abortSignal === undefined ? {} : { signal: options.abortSignal })
      const next = script[calls++]
      if (next === undefined) throw new Error(`the script has ${script.length} replies; the SDK asked for another`)
      return next
    },
  })
}
