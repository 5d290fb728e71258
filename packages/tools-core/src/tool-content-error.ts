import type { ContentBlock } from './content.js'
import { DshError, errorBrand } from './dsh-error.js'
import type { DshErrorCode } from './tool-error-codes.js'
import { snapshotJson } from './json-snapshot.js'

const toolContentErrorBrand: symbol = errorBrand('ToolContentError')

/** Options of the {@link ToolContentError} constructor. */
export interface ToolContentErrorOptions {
  /**
   * What the model reads for the failed call, in place of the message: text, images, audio, resource links,
   * embedded resources, exactly as a successful call's content. The registry checks and materializes it like a
   * success's content. Empty (or omitted): the model reads the message as one text block.
   */
  readonly content?: readonly ContentBlock[] | undefined
  /** The underlying error (ES2022 `cause`). */
  readonly cause?: unknown
}

/**
 * A tool body fails with content of its own: thrown from `execute`, it becomes an `isError` result whose `content`
 * is {@link ToolContentError.content} (a screenshot of the failure, the server's own error blocks) and whose
 * `error` is the routable `{ name, code }` of the thrown error. Any other `DshError` becomes an error result with
 * its message as the only text.
 *
 * Subclass it to name the failure (`name` travels as `error.name`); the registry recognises a subclass from any
 * installed copy of tools-core by its brand, never by `instanceof`. An error result never carries `meta` or
 * `structuredContent`: `presentResult` sees `{ content, isError: true }`.
 *
 * @example
 * ```ts
 * throw new ToolContentError('BROWSER_NAVIGATION_FAILED', 'The page did not load.', {
 *   content: [{ type: 'text', text: 'The page did not load:' }, { type: 'image', data: png, mimeType: 'image/png' }],
 * })
 * ```
 */
export class ToolContentError extends DshError {
  static override readonly brand: symbol = toolContentErrorBrand

  /** True when `value` is a {@link ToolContentError} (or a subclass) from any installed copy of tools-core. */
  static override isInstance(value: unknown): value is ToolContentError {
    return DshError.hasBrand(value, toolContentErrorBrand)
  }

  override readonly name: string = 'ToolContentError'
  /**
   * What the model reads; empty means the message, as one text block. A detached, deep-frozen copy of what was given
   * (a `snapshotJson` copy), so changing a block after the throw changes nothing the model reads. Content that is not
   * lossless JSON (a cycle, a function, past `MAX_JSON_SIZE`) cannot be copied that way: it is kept as given, in a
   * frozen array, and the registry answers the call `INVALID_RESULT` with a text that names this error and where its
   * content is not JSON.
   */
  readonly content: readonly ContentBlock[]

  /**
   * @param code - the machine-routable code: a core code or a tool-owned one from `defineToolErrorCodes`
   * @param message - what failed, for logs and people (and for the model when `content` is empty)
   * @param options - the model-facing `content`, and a `cause`
   */
  constructor(code: DshErrorCode, message: string, options?: ToolContentErrorOptions) {
    super(code, message, options !== undefined && 'cause' in options ? { cause: options.cause } : undefined)
    const content: unknown = options?.content
    // Anything but an array is kept as given: the registry reports it (INVALID_RESULT) rather than hiding it. The
    // constructor never throws: a failure to copy must not hide the failure being reported.
    if (content === undefined) this.content = Object.freeze([])
    else if (!Array.isArray(content)) this.content = content as readonly ContentBlock[]
    else {
      const snapshot = snapshotJson(content)
      this.content = snapshot.ok ? (snapshot.value as unknown as readonly ContentBlock[]) : Object.freeze([...(content as ContentBlock[])])
    }
  }
}
