// Test helpers of the AI SDK adapter's tests: a registry with two tools, and a scripted MockLanguageModelV3 that
// records the prompt it received on every step.
import { defineTool, ToolRegistry } from '@dsh/tools-registry'
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test'
import { Context } from 'cordis'

// The provider-spec types, read off the mock (`@ai-sdk/provider` is not a dependency of ours).
type LanguageModelV3CallOptions = Parameters<MockLanguageModelV3['doGenerate']>[0]
type LanguageModelV3GenerateResult = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>
type LanguageModelV3Content = LanguageModelV3GenerateResult['content'][number]
type StreamPart = Awaited<ReturnType<MockLanguageModelV3['doStream']>>['stream'] extends ReadableStream<infer Part> ? Part : never

/** A registry with `read_file` (path required) and `delete_file`, recording each body run with its call id. */
export async function createRegistry(): Promise<{ ctx: Context; runs: { name: string; callId: string; args: unknown }[] }> {
  const ctx = new Context()
  await ctx.plugin(ToolRegistry)
  const runs: { name: string; callId: string; args: unknown }[] = []
  ctx.tools.register(
    defineTool({
      name: 'read_file',
      description: 'Read a file.',
      parameters: { path: { type: 'string', required: true }, limit: { type: 'integer' } },
      execute: (args, exec) => {
        runs.push({ name: 'read_file', callId: exec.callId, args })
        return `contents of ${args.path}`
      },
    }),
  )
  ctx.tools.register(
    defineTool({
      name: 'delete_file',
      description: 'Delete a file.',
      parameters: { path: { type: 'string', required: true } },
      execute: (args, exec) => {
        runs.push({ name: 'delete_file', callId: exec.callId, args })
        return 'deleted'
      },
    }),
  )
  return { ctx, runs }
}

/** A tool call of the mock model (its input is the JSON text a provider would send). */
export const toolCall = (toolCallId: string, toolName: string, input: unknown): LanguageModelV3Content => ({
  type: 'tool-call',
  toolCallId,
  toolName,
  input: typeof input === 'string' ? input : JSON.stringify(input),
})

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
}

/** A mock model that answers step N with `steps[N]` (tool calls, or a final text) and records every prompt. */
export function scriptedModel(steps: readonly (readonly LanguageModelV3Content[])[]): {
  model: MockLanguageModelV3
  prompts: LanguageModelV3CallOptions['prompt'][]
} {
  const prompts: LanguageModelV3CallOptions['prompt'][] = []
  const model = new MockLanguageModelV3({
    doGenerate: async (options): Promise<LanguageModelV3GenerateResult> => {
      prompts.push(structuredClone(options.prompt))
      const content = steps[prompts.length - 1] ?? [{ type: 'text', text: 'done' }]
      const calls = content.some((part) => part.type === 'tool-call')
      return { content: [...content], finishReason: { unified: calls ? 'tool-calls' : 'stop', raw: undefined }, usage, warnings: [] }
    },
    // The same script as a stream, for streamText: each step's parts, then its finish.
    doStream: async (options) => {
      prompts.push(structuredClone(options.prompt))
      const content = steps[prompts.length - 1] ?? [{ type: 'text', text: 'done' }]
      const calls = content.some((part) => part.type === 'tool-call')
      const parts: StreamPart[] = [{ type: 'stream-start', warnings: [] }]
      for (const part of content) {
        if (part.type === 'tool-call') parts.push(part)
        else if (part.type === 'text') parts.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: part.text }, { type: 'text-end', id: 't' })
      }
      parts.push({ type: 'finish', finishReason: { unified: calls ? 'tool-calls' : 'stop', raw: undefined }, usage })
      return { stream: convertArrayToReadableStream(parts) }
    },
  })
  return { model, prompts }
}

/** The tool-result parts of the last tool message of a prompt, as `{ toolCallId, toolName, output }`. */
export function toolResultsIn(prompt: LanguageModelV3CallOptions['prompt'] | undefined): unknown[] {
  const tool = [...(prompt ?? [])].reverse().find((message) => message.role === 'tool')
  if (tool === undefined || tool.role !== 'tool') return []
  return tool.content.map((part) => (part.type === 'tool-result' ? { toolCallId: part.toolCallId, toolName: part.toolName, output: part.output } : part))
}
