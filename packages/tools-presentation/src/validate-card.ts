import { formatJsonPath, type JsonPathSegment, type ToolCallView, type ToolResultView } from '@dsh/tools-core'
import { InvalidCardError, type CardError } from './invalid-card-error.js'
import { UnknownCardError } from './unknown-card-error.js'

const TOOL_CALL_KINDS: ReadonlySet<string> = new Set([
  'read',
  'edit',
  'delete',
  'move',
  'search',
  'execute',
  'fetch',
  'other',
])
const CARD_KINDS: ReadonlySet<string> = new Set(['generic', 'terminal', 'diff', 'task', 'code'])
/** Cards a completed call may use but a pending one may not. */
const RESULT_ONLY_CARDS: ReadonlySet<string> = new Set(['task'])
const TASK_STATUSES: ReadonlySet<unknown> = new Set(['working', 'input_required', 'completed', 'failed', 'cancelled'])
const CODE_LANGUAGES: ReadonlySet<unknown> = new Set(['typescript', 'javascript'])
const CODE_RUN_STATUSES: ReadonlySet<unknown> = new Set(['completed', 'error', 'timeout', 'memory', 'aborted'])
/** ACP carries line numbers as `uint32`. */
const MAX_LINE = 4_294_967_295

type Issue = { path: JsonPathSegment[]; reason: string }
type Fields = Record<string, unknown>

function isRecord(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
  if (typeof value === 'object') return 'an object'
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : `a ${typeof value}`
}

/** Optional fields: an own property holding `undefined` counts as absent (presenters often build cards that way). */
function optional(fields: Fields, key: string): unknown {
  return Object.hasOwn(fields, key) ? fields[key] : undefined
}

function checkString(fields: Fields, key: string, path: JsonPathSegment[], required: boolean): Issue | undefined {
  const value = optional(fields, key)
  if (value === undefined) return required ? { path: [...path, key], reason: 'a string is required' } : undefined
  if (typeof value === 'string') return undefined
  return { path: [...path, key], reason: `expected a string, got ${describeValue(value)}` }
}

function checkNullableString(fields: Fields, key: string, path: JsonPathSegment[]): Issue | undefined {
  const value = optional(fields, key)
  if (value === undefined || value === null || typeof value === 'string') return undefined
  return { path: [...path, key], reason: `expected a string or null, got ${describeValue(value)}` }
}

function checkAnnotations(value: unknown, path: JsonPathSegment[]): Issue | undefined {
  if (value === undefined) return undefined
  if (!isRecord(value)) return { path, reason: `expected an object, got ${describeValue(value)}` }
  const audience = optional(value, 'audience')
  if (audience !== undefined) {
    if (!Array.isArray(audience)) return { path: [...path, 'audience'], reason: 'expected an array' }
    for (const [index, role] of audience.entries()) {
      if (role !== 'user' && role !== 'assistant') {
        const reason = `expected "user" or "assistant", got ${describeValue(role)}`
        return { path: [...path, 'audience', index], reason }
      }
    }
  }
  const priority = optional(value, 'priority')
  if (priority !== undefined && (typeof priority !== 'number' || !(priority >= 0 && priority <= 1))) {
    return { path: [...path, 'priority'], reason: `expected a number from 0 to 1, got ${describeValue(priority)}` }
  }
  return checkString(value, 'lastModified', path, false)
}

function checkContentBlock(block: unknown, path: JsonPathSegment[]): Issue | undefined {
  if (!isRecord(block)) return { path, reason: `expected a content block, got ${describeValue(block)}` }
  const annotations = checkAnnotations(optional(block, 'annotations'), [...path, 'annotations'])
  if (annotations !== undefined) return annotations
  switch (block['type']) {
    case 'text':
      return checkString(block, 'text', path, true)
    case 'image':
    case 'audio':
      return checkString(block, 'data', path, true) ?? checkString(block, 'mimeType', path, true)
    case 'resource_link': {
      const issue =
        checkString(block, 'uri', path, true) ??
        checkString(block, 'name', path, true) ??
        checkString(block, 'title', path, false) ??
        checkString(block, 'description', path, false) ??
        checkString(block, 'mimeType', path, false)
      if (issue !== undefined) return issue
      const size = optional(block, 'size')
      if (size !== undefined && !(Number.isSafeInteger(size) && (size as number) >= 0)) {
        return { path: [...path, 'size'], reason: `expected a non-negative integer, got ${describeValue(size)}` }
      }
      return undefined
    }
    case 'resource': {
      const resource = block['resource']
      const at = [...path, 'resource']
      if (!isRecord(resource)) return { path: at, reason: `expected resource contents, got ${describeValue(resource)}` }
      const issue = checkString(resource, 'uri', at, true) ?? checkString(resource, 'mimeType', at, false)
      if (issue !== undefined) return issue
      const hasText = typeof optional(resource, 'text') === 'string'
      const hasBlob = typeof optional(resource, 'blob') === 'string'
      if (hasText === hasBlob) return { path: at, reason: 'expected exactly one of a string "text" or a string "blob"' }
      return undefined
    }
    default:
      return { path: [...path, 'type'], reason: `unknown content block type ${describeValue(block['type'])}` }
  }
}

function checkArray(
  fields: Fields,
  key: string,
  path: JsonPathSegment[],
  required: boolean,
  item: (value: unknown, path: JsonPathSegment[]) => Issue | undefined,
): Issue | undefined {
  const value = optional(fields, key)
  if (value === undefined) return required ? { path: [...path, key], reason: 'an array is required' } : undefined
  if (!Array.isArray(value)) return { path: [...path, key], reason: `expected an array, got ${describeValue(value)}` }
  for (let index = 0; index < value.length; index += 1) {
    const issue = item(value[index], [...path, key, index])
    if (issue !== undefined) return issue
  }
  return undefined
}

function checkLocation(value: unknown, path: JsonPathSegment[]): Issue | undefined {
  if (!isRecord(value)) return { path, reason: `expected a file location, got ${describeValue(value)}` }
  const issue = checkString(value, 'path', path, true)
  if (issue !== undefined) return issue
  const line = optional(value, 'line')
  if (line !== undefined && !(Number.isInteger(line) && (line as number) >= 1 && (line as number) <= MAX_LINE)) {
    return { path: [...path, 'line'], reason: `expected a 1-based line number, got ${describeValue(line)}` }
  }
  return undefined
}

function checkFileDiff(value: unknown, path: JsonPathSegment[]): Issue | undefined {
  if (!isRecord(value)) return { path, reason: `expected a file diff, got ${describeValue(value)}` }
  const oldText = value['oldText']
  if (oldText !== null && typeof oldText !== 'string') {
    const reason = `expected a string, or null for a new file, got ${describeValue(oldText)}`
    return { path: [...path, 'oldText'], reason }
  }
  return checkString(value, 'path', path, true) ?? checkString(value, 'newText', path, true)
}

function checkExitCode(fields: Fields): Issue | undefined {
  const exitCode = optional(fields, 'exitCode')
  if (exitCode === undefined || exitCode === null || Number.isSafeInteger(exitCode)) return undefined
  return { path: ['exitCode'], reason: `expected an integer or null, got ${describeValue(exitCode)}` }
}

function checkCard(value: unknown, phase: 'call' | 'result'): CardError | undefined {
  if (!isRecord(value)) {
    const reason = `expected a card object, got ${describeValue(value)}`
    return new UnknownCardError({ card: undefined, path: 'card', reason })
  }
  const card = value['card']
  if (typeof card !== 'string' || !CARD_KINDS.has(card)) {
    return new UnknownCardError({ card, path: 'card', reason: `"card" is ${describeValue(card)}` })
  }
  if (phase === 'call' && RESULT_ONLY_CARDS.has(card)) {
    return new UnknownCardError({ card, path: 'card', reason: `"${card}" is a card for completed calls only` })
  }
  const issue = phase === 'call' ? checkCallFields(card, value) : checkResultFields(card, value)
  if (issue === undefined) return undefined
  return new InvalidCardError({ card, path: formatJsonPath(issue.path), reason: issue.reason })
}

function checkCallFields(card: string, fields: Fields): Issue | undefined {
  const title = checkString(fields, 'title', [], true)
  if (title !== undefined) return title
  switch (card) {
    case 'generic': {
      const kind = optional(fields, 'kind')
      if (kind !== undefined && (typeof kind !== 'string' || !TOOL_CALL_KINDS.has(kind))) {
        return { path: ['kind'], reason: `unknown tool call kind ${describeValue(kind)}` }
      }
      return (
        checkArray(fields, 'content', [], false, checkContentBlock) ??
        checkArray(fields, 'locations', [], false, checkLocation)
      )
    }
    case 'terminal':
      return checkString(fields, 'description', [], false) ?? checkString(fields, 'cwd', [], false)
    case 'code': {
      const language = optional(fields, 'language')
      if (!CODE_LANGUAGES.has(language)) {
        return { path: ['language'], reason: `expected typescript or javascript, got ${describeValue(language)}` }
      }
      return checkString(fields, 'code', [], true) ?? checkString(fields, 'description', [], false)
    }
    default:
      return (
        checkArray(fields, 'diffs', [], true, checkFileDiff) ?? checkArray(fields, 'locations', [], false, checkLocation)
      )
  }
}

function checkResultFields(card: string, fields: Fields): Issue | undefined {
  const title = checkString(fields, 'title', [], false)
  if (title !== undefined) return title
  switch (card) {
    case 'generic':
      return checkArray(fields, 'content', [], false, checkContentBlock)
    case 'terminal': {
      const issue =
        checkString(fields, 'output', [], false) ?? checkExitCode(fields) ?? checkNullableString(fields, 'signal', [])
      if (issue !== undefined) return issue
      const timedOut = optional(fields, 'timedOut')
      if (timedOut !== undefined && typeof timedOut !== 'boolean') {
        return { path: ['timedOut'], reason: `expected a boolean, got ${describeValue(timedOut)}` }
      }
      return undefined
    }
    case 'task':
      return checkTaskFields(fields)
    case 'code':
      return checkCodeResultFields(fields)
    default:
      return checkArray(fields, 'diffs', [], true, checkFileDiff)
  }
}

function checkTaskFields(fields: Fields): Issue | undefined {
  const status = optional(fields, 'status')
  if (!TASK_STATUSES.has(status)) {
    return { path: ['status'], reason: `expected working, input_required, completed, failed or cancelled, got ${describeValue(status)}` }
  }
  const issue = checkString(fields, 'taskId', [], true) ?? checkString(fields, 'statusMessage', [], false) ?? checkString(fields, 'output', [], false)
  if (issue !== undefined) return issue
  const progress = optional(fields, 'progress')
  if (progress === undefined) return undefined
  if (!isRecord(progress)) return { path: ['progress'], reason: `expected an object, got ${describeValue(progress)}` }
  for (const key of ['progress', 'total'] as const) {
    const value = optional(progress, key)
    if ((key === 'progress' || value !== undefined) && (typeof value !== 'number' || !Number.isFinite(value))) {
      return { path: ['progress', key], reason: `expected a finite number, got ${describeValue(value)}` }
    }
  }
  return checkString(progress, 'message', ['progress'], false)
}

function checkCodeResultFields(fields: Fields): Issue | undefined {
  const status = optional(fields, 'status')
  if (!CODE_RUN_STATUSES.has(status)) {
    return { path: ['status'], reason: `expected completed, error, timeout, memory or aborted, got ${describeValue(status)}` }
  }
  const durationMs = optional(fields, 'durationMs')
  if (durationMs !== undefined && !(typeof durationMs === 'number' && Number.isFinite(durationMs) && durationMs >= 0)) {
    return { path: ['durationMs'], reason: `expected a finite number of milliseconds, not negative, got ${describeValue(durationMs)}` }
  }
  return (
    checkString(fields, 'error', [], false) ??
    checkString(fields, 'logs', [], false) ??
    checkString(fields, 'value', [], false) ??
    checkArray(fields, 'subCalls', [], true, checkSubCall)
  )
}

function checkSubCall(value: unknown, path: JsonPathSegment[]): Issue | undefined {
  if (!isRecord(value)) return { path, reason: `expected a sub-call, got ${describeValue(value)}` }
  const issue = checkString(value, 'callId', path, true) ?? checkString(value, 'name', path, true)
  if (issue !== undefined) return issue
  const isError = optional(value, 'isError')
  if (typeof isError !== 'boolean') return { path: [...path, 'isError'], reason: `expected a boolean, got ${describeValue(isError)}` }
  return checkString(value, 'code', path, false)
}

/**
 * Checks that `value` is a {@link ToolCallView} of the vocabulary: a known `card` and well-formed fields (content
 * blocks, 1-based `line`s, `oldText` a string or `null`, …). Returns the problem, or `undefined` when it is a card.
 */
export function findToolCallViewIssue(value: unknown): CardError | undefined {
  return checkCard(value, 'call')
}

/** Like {@link findToolCallViewIssue}, for a {@link ToolResultView}. */
export function findToolResultViewIssue(value: unknown): CardError | undefined {
  return checkCard(value, 'result')
}

/** True when `value` is a well-formed {@link ToolCallView}. */
export function isToolCallView(value: unknown): value is ToolCallView {
  return checkCard(value, 'call') === undefined
}

/** True when `value` is a well-formed {@link ToolResultView}. */
export function isToolResultView(value: unknown): value is ToolResultView {
  return checkCard(value, 'result') === undefined
}

/**
 * Throws an {@link UnknownCardError} (`UNKNOWN_CARD`) when `value` is not a card, an {@link InvalidCardError}
 * (`INVALID_CARD`) when a field is malformed; returns when `value` is a well-formed {@link ToolCallView}.
 */
export function assertToolCallView(value: unknown): asserts value is ToolCallView {
  const issue = checkCard(value, 'call')
  if (issue !== undefined) throw issue
}

/** Like {@link assertToolCallView}, for a {@link ToolResultView}. */
export function assertToolResultView(value: unknown): asserts value is ToolResultView {
  const issue = checkCard(value, 'result')
  if (issue !== undefined) throw issue
}
