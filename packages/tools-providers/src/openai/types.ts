/**
 * Structural types of the OpenAI wire shapes this subpath reads and writes. They are our own (installing this
 * package never pulls the `openai` SDK); type tests check that each is assignable to, or accepts, the SDK's type.
 */

/** A Chat Completions function tool (`ChatCompletionFunctionTool`). */
export interface OpenAIChatFunctionTool {
  /** Discriminant. */
  type: 'function'
  /** The function. */
  function: {
    /** The tool's name. */
    name: string
    /** The tool's description. */
    description: string
    /** The projected parameter schema. */
    parameters: { [keyword: string]: unknown }
    /** True when the tool was built with the `openai-strict` profile. */
    strict: boolean
  }
}

/** A Responses API function tool (`FunctionTool`). */
export interface OpenAIResponsesFunctionTool {
  /** Discriminant. */
  type: 'function'
  /** The tool's name. */
  name: string
  /** The tool's description. */
  description: string
  /** The projected parameter schema. */
  parameters: { [keyword: string]: unknown }
  /** True when the tool was built with the `openai-strict` profile. */
  strict: boolean
}

/** What the call parser accepts for one Chat Completions tool call (`ChatCompletionMessageToolCall`, any kind). */
export interface OpenAIChatToolCallLike {
  /** The call id. */
  readonly id: string
  /** `function` (anything else, a custom tool call, is answered as malformed). */
  readonly type: string
  /** The function call. */
  readonly function?: { readonly name: string; readonly arguments: string } | undefined
}

/** What the Responses call parser accepts: any output item; only `function_call` items are calls. */
export interface OpenAIResponsesItemLike {
  /** The item's type; `function_call` items are read. */
  readonly type: string
}

/** A Chat Completions text part. */
export interface OpenAIChatTextPart {
  /** Discriminant. */
  type: 'text'
  /** The text. */
  text: string
}

/** A Chat Completions image part (a data URL). */
export interface OpenAIChatImagePart {
  /** Discriminant. */
  type: 'image_url'
  /** The image. */
  image_url: { url: string }
}

/** A Chat Completions audio part (wav or mp3 only). */
export interface OpenAIChatAudioPart {
  /** Discriminant. */
  type: 'input_audio'
  /** The audio. */
  input_audio: { data: string; format: 'wav' | 'mp3' }
}

/** A `role: 'tool'` message: one call's result, as text (tool messages carry no images and no error flag). */
export interface OpenAIChatToolMessage {
  /** Discriminant. */
  role: 'tool'
  /** The call this answers. */
  tool_call_id: string
  /** The result's text; an error result starts with `Error (CODE):`. */
  content: string
}

/** The user message after a step's tool messages: images and audio of the results, then the additional context. */
export interface OpenAIChatUserMessage {
  /** Discriminant. */
  role: 'user'
  /** The parts. */
  content: (OpenAIChatTextPart | OpenAIChatImagePart | OpenAIChatAudioPart)[]
}

/** One message of a step's results for Chat Completions. */
export type OpenAIChatMessage = OpenAIChatToolMessage | OpenAIChatUserMessage

/** A Responses `input_text` part. */
export interface OpenAIResponsesTextPart {
  /** Discriminant. */
  type: 'input_text'
  /** The text. */
  text: string
}

/** A Responses `input_image` part (a data URL). */
export interface OpenAIResponsesImagePart {
  /** Discriminant. */
  type: 'input_image'
  /** The image as a data URL. */
  image_url: string
  /** Always `auto`. */
  detail: 'auto'
}

/** A Responses `input_file` part (a PDF as a data URL). */
export interface OpenAIResponsesFilePart {
  /** Discriminant. */
  type: 'input_file'
  /** The file as a data URL. */
  file_data: string
  /** Its name (the resource URI's last segment). */
  filename: string
}

/** A `function_call_output` item: one call's result. */
export interface OpenAIFunctionCallOutput {
  /** Discriminant. */
  type: 'function_call_output'
  /** The call this answers. */
  call_id: string
  /** The text (when the result is text only) or the parts; an error result starts with `Error (CODE):`. */
  output: string | (OpenAIResponsesTextPart | OpenAIResponsesImagePart | OpenAIResponsesFilePart)[]
}

/** The user message after a step's outputs, holding the additional context. */
export interface OpenAIResponsesUserMessage {
  /** Discriminant. */
  type: 'message'
  /** Discriminant. */
  role: 'user'
  /** The parts. */
  content: (OpenAIResponsesTextPart | OpenAIResponsesImagePart | OpenAIResponsesFilePart)[]
}

/** One input item of a step's results for the Responses API. */
export type OpenAIResponsesInputItem = OpenAIFunctionCallOutput | OpenAIResponsesUserMessage
