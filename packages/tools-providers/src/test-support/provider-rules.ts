// Request rules of the providers, for the replay server to enforce as the provider would (a 400 with its message).
import type { ProviderRule } from './replay-server.js'

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null
const blank = (value: unknown): boolean => typeof value === 'string' && value.trim() === ''

/**
 * Where `body` holds an empty or whitespace-only text a model would be handed, or `undefined`: a text block or part
 * (`text`, `input_text`, a Gemini text part), a tool message's or `function_call_output`'s string, a Gemini
 * `functionResponse`'s `output` or `error`, an AI SDK `text` / `error-text` model output's `value`.
 */
export function blankTextIn(value: unknown, where = 'body'): string | undefined {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = blankTextIn(item, `${where}[${index}]`)
      if (found !== undefined) return found
    }
    return undefined
  }
  if (!isObject(value)) return undefined
  if ((value['type'] === 'text' || value['type'] === 'input_text' || value['type'] === undefined) && blank(value['text'])) return `${where}.text`
  if (value['role'] === 'tool' && blank(value['content'])) return `${where}.content`
  if ((value['type'] === 'text' || value['type'] === 'error-text') && blank(value['value'])) return `${where}.value`
  if (value['type'] === 'function_call_output' && blank(value['output'])) return `${where}.output`
  const response = value['response']
  if (typeof value['name'] === 'string' && isObject(response) && (blank(response['output']) || blank(response['error']))) return `${where}.response`
  for (const [key, item] of Object.entries(value)) {
    const found = blankTextIn(item, `${where}.${key}`)
    if (found !== undefined) return found
  }
  return undefined
}

/** Anthropic's Messages API: an empty text block anywhere, inside a `tool_result` too, is a 400. */
export const anthropicRefusesEmptyText: ProviderRule = ({ body }) => {
  const found = blankTextIn(isObject(body) ? body['messages'] : undefined, 'messages')
  return found === undefined ? undefined : `${found}: text content blocks must be non-empty`
}

/** Our promise for every provider: no request hands the model an empty text (refused here like Anthropic's 400). */
export const noEmptyText: ProviderRule = ({ body }) => {
  const found = blankTextIn(body)
  return found === undefined ? undefined : `${found}: an empty text was sent`
}

/**
 * Gemini's multimodal function responses (`functionResponse.parts`) exist for Gemini 3 models only; an earlier
 * model (read off the request path, `/models/gemini-2.5-flash:generateContent`) answers them with a 400.
 */
export const geminiPartsNeedGemini3: ProviderRule = ({ path, body }) => {
  const major = /\/models\/gemini-(\d+)/.exec(path)?.[1]
  if (major === undefined || Number(major) >= 3) return undefined
  const contents = isObject(body) && Array.isArray(body['contents']) ? body['contents'] : []
  for (const content of contents) {
    const parts = isObject(content) && Array.isArray(content['parts']) ? content['parts'] : []
    for (const part of parts) {
      const response = isObject(part) ? part['functionResponse'] : undefined
      if (isObject(response) && response['parts'] !== undefined) return `function response parts are not supported by gemini-${major} models`
    }
  }
  return undefined
}
