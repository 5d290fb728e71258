/** A provider's rule for tool names: the pattern and how its error message states it. */
export interface ToolNameRule {
  /** The provider, as messages name it. */
  readonly provider: string
  /** The names it accepts. */
  readonly pattern: RegExp
  /** The rule in words, for the message. */
  readonly rule: string
}

/** OpenAI (Chat Completions and Responses): `^[a-zA-Z0-9_-]{1,64}$`. */
export const OPENAI_TOOL_NAME: ToolNameRule = Object.freeze({
  provider: 'OpenAI',
  pattern: /^[a-zA-Z0-9_-]{1,64}$/,
  rule: 'letters, digits, "_" and "-" only, 1 to 64 characters (^[a-zA-Z0-9_-]{1,64}$)',
})

/** Anthropic Messages: `^[a-zA-Z0-9_-]{1,128}$`. */
export const ANTHROPIC_TOOL_NAME: ToolNameRule = Object.freeze({
  provider: 'Anthropic',
  pattern: /^[a-zA-Z0-9_-]{1,128}$/,
  rule: 'letters, digits, "_" and "-" only, 1 to 128 characters (^[a-zA-Z0-9_-]{1,128}$)',
})

/** Gemini: starts with a letter or `_`, then letters, digits, `_`, `.`, `-`; at most 64 characters. */
export const GEMINI_TOOL_NAME: ToolNameRule = Object.freeze({
  provider: 'Gemini',
  pattern: /^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$/,
  rule: 'a letter or "_" first, then letters, digits, "_", "." and "-", at most 64 characters (^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$)',
})
