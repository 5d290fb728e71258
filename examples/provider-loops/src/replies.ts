// Recorded responses for the offline runs, shaped as each provider's API documents them: a first reply that calls
// list_files and read_file together and then delete_file, and a final text answer.

/** The model's answer after the tool results, in every example (also the AI SDK's scripted model). */
export const finalAnswer = 'There are two files; notes.txt says to ship the provider loops on Friday, and todo.txt was not deleted because the workspace is read-only.'

/** OpenAI Chat Completions (`POST /v1/chat/completions`). */
export const openaiReplies: readonly unknown[] = [
  {
    id: 'chatcmpl-offline-1', object: 'chat.completion', created: 1764633600, model: 'gpt-4.1-mini-2025-04-14',
    choices: [{
      index: 0, logprobs: null, finish_reason: 'tool_calls',
      message: {
        role: 'assistant', content: null, refusal: null, annotations: [],
        tool_calls: [
          { id: 'call_list', type: 'function', function: { name: 'list_files', arguments: '{}' } },
          { id: 'call_read', type: 'function', function: { name: 'read_file', arguments: '{"path":"notes.txt"}' } },
          { id: 'call_delete', type: 'function', function: { name: 'delete_file', arguments: '{"path":"todo.txt"}' } },
        ],
      },
    }],
    usage: { prompt_tokens: 120, completion_tokens: 60, total_tokens: 180 },
  },
  {
    id: 'chatcmpl-offline-2', object: 'chat.completion', created: 1764633602, model: 'gpt-4.1-mini-2025-04-14',
    choices: [{ index: 0, logprobs: null, finish_reason: 'stop', message: { role: 'assistant', content: finalAnswer, refusal: null, annotations: [] } }],
    usage: { prompt_tokens: 260, completion_tokens: 30, total_tokens: 290 },
  },
]

/** Anthropic Messages (`POST /v1/messages`). */
export const anthropicReplies: readonly unknown[] = [
  {
    id: 'msg_offline_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', stop_reason: 'tool_use', stop_sequence: null,
    content: [
      { type: 'text', text: 'I will look at the files first.' },
      { type: 'tool_use', id: 'toolu_offline_list', name: 'list_files', input: {} },
      { type: 'tool_use', id: 'toolu_offline_read', name: 'read_file', input: { path: 'notes.txt' } },
      { type: 'tool_use', id: 'toolu_offline_delete', name: 'delete_file', input: { path: 'todo.txt' } },
    ],
    usage: { input_tokens: 400, output_tokens: 90 },
  },
  {
    id: 'msg_offline_2', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', stop_reason: 'end_turn', stop_sequence: null,
    content: [{ type: 'text', text: finalAnswer }],
    usage: { input_tokens: 650, output_tokens: 30 },
  },
]

/** Gemini generateContent (`POST /v1beta/models/{model}:generateContent`). */
export const geminiReplies: readonly unknown[] = [
  {
    candidates: [{
      index: 0, finishReason: 'STOP',
      content: {
        role: 'model',
        parts: [
          { functionCall: { name: 'list_files', args: {} } },
          { functionCall: { name: 'read_file', args: { path: 'notes.txt' } } },
          { functionCall: { name: 'delete_file', args: { path: 'todo.txt' } } },
        ],
      },
    }],
    usageMetadata: { promptTokenCount: 90, candidatesTokenCount: 40, totalTokenCount: 130 },
    modelVersion: 'gemini-2.5-flash',
  },
  {
    candidates: [{ index: 0, finishReason: 'STOP', content: { role: 'model', parts: [{ text: finalAnswer }] } }],
    usageMetadata: { promptTokenCount: 220, candidatesTokenCount: 30, totalTokenCount: 250 },
    modelVersion: 'gemini-2.5-flash',
  },
]
