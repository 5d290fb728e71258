/**
 * Structural types of the Anthropic Messages wire shapes this subpath reads and writes. They are our own
 * (installing this package never pulls `@anthropic-ai/sdk`); type tests check them against the SDK's types.
 */

/** A client tool (`Tool`). */
export interface AnthropicTool {
  /** The tool's name. */
  name: string
  /** The tool's description. */
  description: string
  /** The projected parameter schema. */
  input_schema: { type: 'object'; [keyword: string]: unknown }
  /** Present (`true`) when the tool was built with the `anthropic-strict` profile. */
  strict?: true
}

/** What the call parser accepts: any content block of an assistant message; only `tool_use` blocks are calls. */
export interface AnthropicContentBlockLike {
  /** The block's type; `tool_use` blocks are read. */
  readonly type: string
}

/** A text block. */
export interface AnthropicTextBlock {
  /** Discriminant. */
  type: 'text'
  /** The text. */
  text: string
}

/** An image block (base64; JPEG, PNG, GIF or WebP). */
export interface AnthropicImageBlock {
  /** Discriminant. */
  type: 'image'
  /** The image. */
  source: { type: 'base64'; media_type: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'; data: string }
}

/** A document block (a base64 PDF). */
export interface AnthropicDocumentBlock {
  /** Discriminant. */
  type: 'document'
  /** The PDF. */
  source: { type: 'base64'; media_type: 'application/pdf'; data: string }
}

/** A `tool_result` block: one call's result. */
export interface AnthropicToolResultBlock {
  /** Discriminant. */
  type: 'tool_result'
  /** The call this answers. */
  tool_use_id: string
  /** The result's content. */
  content: (AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock)[]
  /** Present (`true`) for an error result. */
  is_error?: true
}

/** The user message that answers a step: every `tool_result` first, then the additional context. */
export interface AnthropicToolResultMessage {
  /** Discriminant. */
  role: 'user'
  /** The blocks. */
  content: (AnthropicToolResultBlock | AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock)[]
}
