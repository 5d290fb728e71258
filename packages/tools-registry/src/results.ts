import {
  DshError,
  describeJsonPath,
  formatJsonPath,
  isDshErrorCode,
  snapshotJson,
  ToolContentError,
  type DshErrorCode,
  type JsonSnapshotFailure,
  type ContentBlock,
  type HookContext,
  type PostToolAccept,
  type ToolErrorInfo,
  type ToolExecutionResult,
} from '@dsh/tools-core'
import { createBrand } from './brand.js'
import { contentProblem, hookContextProblem } from './content-check.js'
import { describeThrown, describeValue, quote } from './describe-value.js'
import { isArray, readOwn } from './own-field.js'
import type { ToolDenialCode } from './tool-denied-error.js'

/**
 * What the model reads after a harness fault (a policy that failed to decide, a wrapper or registry failure): the
 * call's outcome is not about its arguments, so it should not try other ones, and retrying cannot help.
 */
export const HARNESS_FAULT =
  'This is a fault in the harness, not in your arguments; calling again with the same or other arguments will fail the same way until it is fixed.'

/** The same for a fault of the tool itself (its result is malformed): other arguments will not fix it either. */
export const TOOL_FAULT = 'This is a fault in the tool, not in your arguments; calling it again is unlikely to help.'

/** One text block. */
export function textContent(text: string): ContentBlock[] {
  return [{ type: 'text', text }]
}

/**
 * An `isError` result with `error: { name, code }` and the text as its content (or `content` when given). The
 * registry builds its failures as data: constructing an `Error` (and its stack) for every denial would cost
 * microseconds for nothing, since results cross boundaries as data anyway. `name` is the error class a caller
 * would throw for the same failure.
 */
export function failure(callId: string, name: string, code: DshErrorCode, text: string, content?: ContentBlock[]): ToolExecutionResult {
  return { callId, content: content ?? textContent(text), isError: true, error: { name, code } }
}

/** `UNKNOWN_TOOL` (`ToolNotFoundError`). */
export function notFound(callId: string, text: string): ToolExecutionResult {
  return failure(callId, 'ToolNotFoundError', 'UNKNOWN_TOOL', text)
}

/** A policy denial (`ToolDeniedError`). */
export function denied(callId: string, code: ToolDenialCode, text: string): ToolExecutionResult {
  return failure(callId, 'ToolDeniedError', code, text)
}

/** `INVALID_DECISION` (`InvalidDecisionError`). */
export function invalidDecision(callId: string, text: string): ToolExecutionResult {
  return failure(callId, 'InvalidDecisionError', 'INVALID_DECISION', text)
}

/** `INVALID_RESULT` (`InvalidToolResultError`). */
export function invalidResult(callId: string, text: string): ToolExecutionResult {
  return failure(callId, 'InvalidToolResultError', 'INVALID_RESULT', text)
}

/** `ABORTED` or `ABORTED_BEFORE_DISPATCH` (`ToolAbortedError`). */
export function aborted(callId: string, code: 'ABORTED' | 'ABORTED_BEFORE_DISPATCH', text: string): ToolExecutionResult {
  return failure(callId, 'ToolAbortedError', code, text)
}

/**
 * `ABORTED` (`ToolAbortedError`) for a call abandoned after the caller's abort: its dispatch did not settle within
 * the registry's abort grace, so it may still be running.
 */
export function abandoned(callId: string, text: string): ToolExecutionResult {
  return aborted(callId, 'ABORTED', text)
}

/** `TOOL_FAILED` (`ToolFailedError`). */
export function toolFailed(callId: string, text: string): ToolExecutionResult {
  return failure(callId, 'ToolFailedError', 'TOOL_FAILED', text)
}

/** `INVALID_CALL` (`InvalidToolCallError`): the input is not a tool call. */
export function invalidCall(callId: string, text: string): ToolExecutionResult {
  return failure(callId, 'InvalidToolCallError', 'INVALID_CALL', text)
}

/** `POST_EXECUTE_BLOCKED` (`PostExecuteBlockedError`): the listener's feedback is the content. */
export function blocked(callId: string, feedback: ContentBlock[]): ToolExecutionResult {
  return failure(callId, 'PostExecuteBlockedError', 'POST_EXECUTE_BLOCKED', '', feedback)
}

/** `NON_JSON_VALUE` (core's `NonJsonValueError`). */
export function nonJson(callId: string, text: string): ToolExecutionResult {
  return failure(callId, 'NonJsonValueError', 'NON_JSON_VALUE', text)
}

/**
 * The result of a thrown value. A branded {@link DshError} whose code is a core code or a well-formed tool-owned code
 * (`isDshErrorCode`) keeps its `{ name, code }` and its message, so a tool package's own codes travel unchanged.
 * Anything else is `TOOL_FAILED` (`<what failed>: <thrown error>`), or `ABORTED` with `abortedText` when the call
 * had been cancelled by then: a plain `Error` with a `code` (`ENOENT`), an unbranded look-alike, or a DshError with
 * a forged code is not trusted to route the failure.
 */
export function thrownResult(callId: string, thrown: unknown, how: ThrownText): ToolExecutionResult {
  const { whatFailed, abortedText, after } = how
  try {
    if (DshError.isInstance(thrown)) {
      // Each field is read once: a getter cannot show the check one value and the result another.
      const { code, name, message } = thrown as { code: unknown; name: unknown; message: unknown }
      if (isDshErrorCode(code) && typeof name === 'string' && name !== '') {
        const text = typeof message === 'string' && message !== '' ? message : `${name} (${code})`
        if (ToolContentError.isInstance(thrown)) return contentFailure(callId, { name, code, text }, readOwn(thrown, 'content'), whatFailed)
        return failure(callId, name, code, text)
      }
    }
  } catch {
    // A hostile error object: treat it like any other thrown value.
  }
  if (abortedText !== undefined) return aborted(callId, 'ABORTED', abortedText)
  return toolFailed(callId, `${whatFailed}: ${describeThrown(thrown)}${after ?? ''}`)
}

/**
 * The result of a thrown {@link ToolContentError}: its `{ name, code }` with its own content, snapshotted and checked
 * like a success's content. Content that is not lossless JSON (a cycle, past the size limit) or malformed is the
 * tool's fault, `INVALID_RESULT`, whose text still names the failure it carried. Empty content is the message as one
 * text block.
 */
function contentFailure(
  callId: string,
  error: { readonly name: string; readonly code: DshErrorCode; readonly text: string },
  content: unknown,
  whatFailed: string,
): ToolExecutionResult {
  const failed = `${whatFailed} (${error.name} ${error.code}: ${error.text}), and the content it failed with`
  // Copied here, not when the result is materialized: a content that is not JSON (a cycle, past the size limit) is
  // then reported with the failure it came with, not as a result that cannot be delivered.
  const snapshot = snapshotField(content)
  if (!snapshot.ok) return invalidResult(callId, `${failed} is not lossless JSON (${relocate(snapshot.error, 'content')}). ${TOOL_FAULT}`)
  const problem = contentProblem(snapshot.value, 'content')
  if (problem !== undefined) return invalidResult(callId, `${failed} is invalid (${problem}). ${TOOL_FAULT}`)
  const blocks = snapshot.value as unknown as ContentBlock[]
  return failure(callId, error.name, error.code, error.text, blocks.length === 0 ? undefined : [...blocks])
}

/** How {@link thrownResult} words an uncoded failure. */
export interface ThrownText {
  /** What failed, before the thrown error: `Tool "x" failed`. */
  readonly whatFailed: string
  /** The text when the call had been cancelled by then (the result is then `ABORTED`). */
  readonly abortedText?: string | undefined
  /** Appended after the thrown error: what it means for the model. */
  readonly after?: string | undefined
}

/**
 * What a tool body returned, as a result: `ContentBlock[]`, or `{ content, meta?, structuredContent? }`. Anything
 * else is `INVALID_RESULT`.
 */
export function bodyResult(callId: string, toolName: string, value: unknown): ToolExecutionResult {
  try {
    if (isArray(value, 'the result')) {
      const problem = contentProblem(value, 'content')
      if (problem === undefined) return { callId, content: value as ContentBlock[], isError: false }
      return invalidResult(callId, malformedBodyText(toolName, `invalid content (${problem})`))
    }
    if (typeof value === 'object' && value !== null) {
      const content = readOwn(value, 'content')
      const problem = contentProblem(content, 'content')
      if (problem !== undefined) return invalidResult(callId, malformedBodyText(toolName, `invalid content (${problem})`))
      const meta = readOwn(value, 'meta')
      const structuredContent = readOwn(value, 'structuredContent')
      const result: ToolExecutionResult = { callId, content: content as ContentBlock[], isError: false }
      if (meta !== undefined) result.meta = meta
      if (structuredContent !== undefined) result.structuredContent = structuredContent
      return result
    }
  } catch (error) {
    return invalidResult(callId, malformedBodyText(toolName, `a result that cannot be read (reading it threw: ${describeThrown(error)})`))
  }
  return invalidResult(callId, malformedBodyText(toolName, `${describeValue(value)}, not content blocks or { content, meta }`))
}

function malformedBodyText(toolName: string, what: string): string {
  return `The call to ${quote(toolName)} ran, but the tool returned ${what}, so there is no result to show. ${TOOL_FAULT}`
}

/** A result the pipeline cannot deliver as it is (not lossless JSON, or malformed): for the model, and for people. */
function undeliverable(callId: string, detail: string): ToolExecutionResult {
  return invalidResult(
    callId,
    `The call produced a result that cannot be delivered (${detail}). This is a fault in the tool or the harness, not in your arguments; calling again is unlikely to help.`,
  )
}

function errorInfoProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return `error must be { name, code }, got ${describeValue(value)}`
  const name = readOwn(value, 'name', 'error.name')
  const code = readOwn(value, 'code', 'error.code')
  if (typeof name !== 'string' || name === '') return `error.name must be a non-empty string, got ${describeValue(name)}`
  if (!isDshErrorCode(code)) return `error.code must be a dsh error code (a core code or a tool-owned FAMILY_SUFFIX), got ${describeValue(code)}`
  return undefined
}

/**
 * Reads a value as a result, or says what is wrong with it. Fields are read once and copied into a fresh
 * object with only the result's own fields; `callId` is always the execution's.
 */
export function readResult(callId: string, value: unknown): ToolExecutionResult | string {
  if (typeof value !== 'object' || value === null || isArray(value, 'the result')) return describeValue(value)
  const content = readOwn(value, 'content')
  const isError = readOwn(value, 'isError')
  const error = readOwn(value, 'error')
  const additionalContext = readOwn(value, 'additionalContext')
  const meta = readOwn(value, 'meta')
  const structuredContent = readOwn(value, 'structuredContent')
  const problem = contentProblem(content, 'content')
  if (problem !== undefined) return `a result with ${problem}`
  if (typeof isError !== 'boolean') return `a result whose isError is ${describeValue(isError)}`
  const result: ToolExecutionResult = { callId, content: content as ContentBlock[], isError }
  if (isError) {
    if (error === undefined) {
      result.error = { name: 'ToolFailedError', code: 'TOOL_FAILED' }
    } else {
      const infoProblem = errorInfoProblem(error)
      if (infoProblem !== undefined) return `a result whose ${infoProblem}`
      result.error = { name: readOwn(error as object, 'name') as string, code: readOwn(error as object, 'code') as ToolErrorInfo['code'] }
    }
  }
  if (additionalContext !== undefined) {
    const contextProblem = hookContextProblem(additionalContext, 'additionalContext')
    if (contextProblem !== undefined) return `a result whose ${contextProblem}`
    result.additionalContext = additionalContext as HookContext
  }
  if (!isError && meta !== undefined) result.meta = meta
  if (!isError && structuredContent !== undefined) result.structuredContent = structuredContent
  return result
}

/**
 * The result a post-execute `accept` leaves: each of `content`, `meta` and `structuredContent` that the decision
 * holds as an own field replaces the result's, and one set to `undefined` drops it (`content` becomes `[]`, since a
 * result always has content). A field the decision leaves out is kept. `decision` is a fresh object from
 * `readPostDecision`.
 */
export function reviewedResult(result: ToolExecutionResult, decision: PostToolAccept): ToolExecutionResult {
  const context = readOwn(decision, 'additionalContext') as HookContext | undefined
  const replacesContent = Object.hasOwn(decision, 'content')
  const replacesMeta = Object.hasOwn(decision, 'meta')
  const replacesValue = Object.hasOwn(decision, 'structuredContent')
  if (!replacesContent && !replacesMeta && !replacesValue && context === undefined) return result
  const accepted: ToolExecutionResult = { callId: result.callId, content: result.content, isError: result.isError }
  const error = readOwn(result, 'error') as ToolErrorInfo | undefined
  if (error !== undefined) accepted.error = error
  const previousContext = readOwn(result, 'additionalContext') as HookContext | undefined
  if (previousContext !== undefined) accepted.additionalContext = previousContext
  if (replacesContent) accepted.content = decision.content ?? []
  const meta = replacesMeta ? decision.meta : readOwn(result, 'meta')
  if (meta !== undefined) accepted.meta = meta
  const structuredContent = replacesValue ? decision.structuredContent : readOwn(result, 'structuredContent')
  if (structuredContent !== undefined) accepted.structuredContent = structuredContent
  if (context !== undefined) accepted.additionalContext = context
  return accepted
}

/**
 * `snapshotJson`, with a snapshot that throws (a revoked proxy, a getter that throws) turned into a failure at the
 * field's root (the caller names the field), so an unreadable value becomes `INVALID_RESULT` like any other non-JSON value.
 */
function snapshotField(value: unknown): ReturnType<typeof snapshotJson> {
  try {
    return snapshotJson(value)
  } catch (error) {
    const message = `it cannot be read: ${describeThrown(error)}`
    return { ok: false, error: { message, path: '', segments: [] } as unknown as JsonSnapshotFailure }
  }
}

/** Results {@link materialize} produced: materializing one again returns it as it is. */
const materialized = createBrand()

/** A snapshot failure's message with its path made relative to the result (`content[0].text`, `meta.when`). */
function relocate(snapshotFailure: JsonSnapshotFailure, field: string): string {
  const { message, path, segments } = snapshotFailure
  const suffix = ` (${describeJsonPath(path)})`
  const detail = message.endsWith(suffix) ? message.slice(0, -suffix.length) : message
  return `${detail} (${describeJsonPath(formatJsonPath([field, ...segments]))})`
}

/**
 * The final result: a detached, deep-frozen, lossless-JSON copy holding exactly the result's fields (`meta` and
 * `structuredContent` only on success; `error` always on failure). Each data field is copied first and checked second, so getters cannot
 * show the check one thing and the copy another. An outcome that is not lossless JSON, or whose shape is wrong,
 * becomes an `INVALID_RESULT` error result (itself frozen).
 */
export function materialize(draft: ToolExecutionResult): ToolExecutionResult {
  if (materialized.has(draft)) return draft
  // Drafts are the registry's own objects, but a polluted Object.prototype would still answer for a field a draft
  // lacks (`meta`, `additionalContext`): read own fields only.
  const callId = draft.callId
  const isError = readOwn(draft, 'isError') === true
  const draftError = readOwn(draft, 'error') as ToolErrorInfo | undefined
  const draftContext = readOwn(draft, 'additionalContext')
  const draftMeta = readOwn(draft, 'meta')
  const draftValue = readOwn(draft, 'structuredContent')
  const content = snapshotField(readOwn(draft, 'content'))
  if (!content.ok) return materialize(undeliverable(callId, `it is not lossless JSON: ${relocate(content.error, 'content')}`))
  const contentIssue = contentProblem(content.value, 'content')
  if (contentIssue !== undefined) return materialize(undeliverable(callId, `its ${contentIssue}`))
  const result: ToolExecutionResult = { callId, content: content.value as unknown as ContentBlock[], isError }
  if (isError) {
    const error = draftError ?? { name: 'ToolFailedError', code: 'TOOL_FAILED' }
    const errorIssue = errorInfoProblem(error)
    if (errorIssue !== undefined) return materialize(undeliverable(callId, `its ${errorIssue}`))
    result.error = Object.freeze({ name: readOwn(error, 'name') as string, code: readOwn(error, 'code') as ToolErrorInfo['code'] })
  }
  if (draftContext !== undefined) {
    const context = snapshotField(draftContext)
    if (!context.ok) {
      return materialize(undeliverable(callId, `it is not lossless JSON: ${relocate(context.error, 'additionalContext')}`))
    }
    const contextIssue = hookContextProblem(context.value, 'additionalContext')
    if (contextIssue !== undefined) return materialize(undeliverable(callId, `its ${contextIssue}`))
    result.additionalContext = context.value as unknown as HookContext
  }
  if (!isError && draftMeta !== undefined) {
    const meta = snapshotField(draftMeta)
    if (!meta.ok) return materialize(undeliverable(callId, `it is not lossless JSON: ${relocate(meta.error, 'meta')}`))
    result.meta = meta.value
  }
  if (!isError && draftValue !== undefined) {
    const value = snapshotField(draftValue)
    if (!value.ok) return materialize(undeliverable(callId, `it is not lossless JSON: ${relocate(value.error, 'structuredContent')}`))
    result.structuredContent = value.value
  }
  Object.freeze(materialized.mark(result))
  return result
}
