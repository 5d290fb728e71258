import {
  deepFreeze,
  formatJsonPath,
  snapshotJson,
  type ContentBlock,
  type JsonPathSegment,
  type ToolCallView,
  type ToolResultView,
} from '@dsh/tools-core'
import { InvalidCardError, type CardError } from './invalid-card-error.js'
import { sanitizeLine } from './sanitize-text.js'
import { UnknownCardError } from './unknown-card-error.js'
import { findToolCallViewIssue, findToolResultViewIssue } from './validate-card.js'

/** A detached, checked, deep-frozen card, or why there is none. */
export type CardSnapshot<View> = { readonly ok: true; readonly view: View } | { readonly ok: false; readonly error: CardError }

/** More items than any UI shows in one list: a bound on what a hostile (or proxied) array can make us copy. */
export const MAX_CARD_ITEMS = 100_000

type Fields = Record<string, unknown>
type Path = readonly JsonPathSegment[]

/** Thrown inside a copy when reading the card failed; turned into a card error at the top. */
class ReadFailure {
  constructor(
    readonly path: Path,
    readonly reason: string,
  ) {}
}

/**
 * Every view this module produced, by phase: already detached, checked and frozen, so it need not be copied again
 * (a result card is not a call card: each phase has its own set).
 */
const detached = { call: new WeakSet<object>(), result: new WeakSet<object>() }

const BLOCK_FIELDS: Readonly<Record<string, readonly string[]>> = {
  text: ['text'],
  image: ['data', 'mimeType'],
  audio: ['data', 'mimeType'],
  resource_link: ['uri', 'name', 'title', 'description', 'mimeType', 'size'],
}
const CALL_FIELDS: Readonly<Record<string, readonly string[]>> = {
  generic: ['title', 'kind'],
  terminal: ['title', 'description', 'cwd'],
  diff: ['title'],
  code: ['title', 'language', 'code', 'description'],
}
const RESULT_FIELDS: Readonly<Record<string, readonly string[]>> = {
  generic: ['title'],
  terminal: ['title', 'output', 'exitCode', 'signal', 'timedOut'],
  diff: ['title'],
  task: ['title', 'taskId', 'status', 'statusMessage', 'output'],
  code: ['title', 'status', 'error', 'durationMs', 'logs', 'value'],
}

/** What something threw, as one short, printable line; never throws itself. */
export function describeThrown(error: unknown): string {
  let text: string
  try {
    text = error instanceof Error ? String(error.message) : String(error)
  } catch {
    text = 'an unprintable value'
  }
  const line = sanitizeLine(text)
  return line.length > 200 ? `${line.slice(0, 200)}…` : line
}

/** The value of an own property (an inherited one counts as absent), read exactly once. */
function own(source: object, key: string, path: Path): unknown {
  try {
    return Object.hasOwn(source, key) ? (source as Fields)[key] : undefined
  } catch (error) {
    throw new ReadFailure([...path, key], `reading it threw: ${describeThrown(error)}`)
  }
}

function isArray(value: unknown, path: Path): value is unknown[] {
  try {
    return Array.isArray(value)
  } catch (error) {
    throw new ReadFailure(path, `inspecting it threw: ${describeThrown(error)}`)
  }
}

function record(value: unknown, path: Path): Fields | undefined {
  return typeof value === 'object' && value !== null && !isArray(value, path) ? (value as Fields) : undefined
}

/** A value where a scalar belongs: itself, or an empty stand-in of the same kind that the check will reject. */
function scalar(value: unknown, path: Path): unknown {
  if (typeof value !== 'object' || value === null) return value
  return isArray(value, path) ? [] : {}
}

function copyFields(source: Fields, keys: readonly string[], target: Fields, path: Path): void {
  for (const key of keys) {
    const value = scalar(own(source, key, path), [...path, key])
    if (value !== undefined) target[key] = value
  }
}

function copyList(value: unknown, path: Path, item: (value: unknown, path: Path) => unknown): unknown {
  if (!isArray(value, path)) return scalar(value, path)
  let length: number
  try {
    length = value.length
  } catch (error) {
    throw new ReadFailure(path, `reading its length threw: ${describeThrown(error)}`)
  }
  if (length > MAX_CARD_ITEMS) throw new ReadFailure(path, `more than ${MAX_CARD_ITEMS} items`)
  const copy: unknown[] = []
  for (let index = 0; index < length; index += 1) {
    let present: boolean
    let element: unknown
    try {
      present = index in value
      element = present ? value[index] : undefined
    } catch (error) {
      throw new ReadFailure([...path, index], `reading it threw: ${describeThrown(error)}`)
    }
    copy.push(item(element, [...path, index]))
    // A hole: the check reports it; nothing after it needs copying (and a huge sparse array costs nothing).
    if (!present) break
  }
  return copy
}

function copyAnnotations(value: unknown, path: Path): unknown {
  const source = record(value, path)
  if (source === undefined) return scalar(value, path)
  const copy: Fields = {}
  const audience = copyList(own(source, 'audience', path), [...path, 'audience'], scalar)
  if (audience !== undefined) copy['audience'] = audience
  copyFields(source, ['priority', 'lastModified'], copy, path)
  return copy
}

function copyBlock(value: unknown, path: Path): unknown {
  const source = record(value, path)
  if (source === undefined) return scalar(value, path)
  const copy: Fields = {}
  const type = scalar(own(source, 'type', path), [...path, 'type'])
  if (type !== undefined) copy['type'] = type
  const fields = typeof type === 'string' && Object.hasOwn(BLOCK_FIELDS, type) ? BLOCK_FIELDS[type] : undefined
  if (fields !== undefined) copyFields(source, fields, copy, path)
  if (type === 'resource') {
    const at = [...path, 'resource']
    const resource = own(source, 'resource', path)
    const contents = record(resource, at)
    if (contents === undefined) copy['resource'] = scalar(resource, at)
    else copyFields(contents, ['uri', 'mimeType', 'text', 'blob'], (copy['resource'] = {}) as Fields, at)
  }
  const annotations = copyAnnotations(own(source, 'annotations', path), [...path, 'annotations'])
  if (annotations !== undefined) copy['annotations'] = annotations
  return copy
}

function copyLocation(value: unknown, path: Path): unknown {
  const source = record(value, path)
  if (source === undefined) return scalar(value, path)
  const copy: Fields = {}
  copyFields(source, ['path', 'line'], copy, path)
  return copy
}

function copyDiff(value: unknown, path: Path): unknown {
  const source = record(value, path)
  if (source === undefined) return scalar(value, path)
  const copy: Fields = {}
  copyFields(source, ['path', 'oldText', 'newText'], copy, path)
  return copy
}

function copySubCall(value: unknown, path: Path): unknown {
  const source = record(value, path)
  if (source === undefined) return scalar(value, path)
  const copy: Fields = {}
  copyFields(source, ['callId', 'name', 'isError', 'code'], copy, path)
  return copy
}

function addList(source: Fields, key: string, target: Fields, item: (value: unknown, path: Path) => unknown): void {
  const list = copyList(own(source, key, []), [key], item)
  if (list !== undefined) target[key] = list
}

/** A plain copy of the parts of `value` the vocabulary knows, each read once; checked afterwards. */
function copyCard(value: unknown, phase: 'call' | 'result', seen: { card?: string }): unknown {
  const source = record(value, [])
  if (source === undefined) return scalar(value, [])
  const card = scalar(own(source, 'card', []), ['card'])
  const copy: Fields = { card }
  if (typeof card === 'string') seen.card = card
  const kinds = phase === 'call' ? CALL_FIELDS : RESULT_FIELDS
  if (typeof card !== 'string' || !Object.hasOwn(kinds, card)) return copy
  copyFields(source, kinds[card] as readonly string[], copy, [])
  if (card === 'generic') {
    addList(source, 'content', copy, copyBlock)
    if (phase === 'call') {
      addList(source, 'locations', copy, copyLocation)
      // Only JSON can be shown (the renderer prints it, ACP sends it): anything else is left out.
      const rawInput = snapshotJson(own(source, 'rawInput', []))
      if (rawInput.ok) copy['rawInput'] = rawInput.value
    }
  } else if (card === 'diff') {
    addList(source, 'diffs', copy, copyDiff)
    if (phase === 'call') addList(source, 'locations', copy, copyLocation)
  } else if (card === 'task') {
    const raw = own(source, 'progress', [])
    const progress = record(raw, ['progress'])
    if (progress !== undefined) copyFields(progress, ['progress', 'total', 'message'], (copy['progress'] = {}) as Fields, ['progress'])
    else if (raw !== undefined) copy['progress'] = scalar(raw, ['progress'])
  } else if (card === 'code' && phase === 'result') {
    addList(source, 'subCalls', copy, copySubCall)
  }
  return copy
}

function snapshot<View>(value: unknown, phase: 'call' | 'result'): CardSnapshot<View> {
  if (typeof value === 'object' && value !== null && detached[phase].has(value)) return { ok: true, view: value as View }
  let copy: unknown
  const seen: { card?: string } = {}
  try {
    copy = copyCard(value, phase, seen)
  } catch (error) {
    const failure = error instanceof ReadFailure ? error : new ReadFailure([], `reading it threw: ${describeThrown(error)}`)
    const path = formatJsonPath([...failure.path])
    const card = seen.card
    return {
      ok: false,
      error:
        card === undefined
          ? new UnknownCardError({ card: undefined, path: path === '' ? 'card' : path, reason: failure.reason })
          : new InvalidCardError({ card, path, reason: failure.reason }),
    }
  }
  const issue = phase === 'call' ? findToolCallViewIssue(copy) : findToolResultViewIssue(copy)
  if (issue !== undefined) return { ok: false, error: issue }
  deepFreeze(copy)
  detached[phase].add(copy as object)
  return { ok: true, view: copy as View }
}

/**
 * A presenter's (or caller's) call card, detached: the fields of the vocabulary read once each (own properties
 * only) into a plain copy, the copy checked, then deep-frozen. Never throws: a getter that throws, a revoked proxy or
 * a malformed field is the `error`. A generic card's `rawInput` is kept only when it is lossless JSON.
 */
export function snapshotToolCallView(value: unknown): CardSnapshot<ToolCallView> {
  return snapshot(value, 'call')
}

/** Like {@link snapshotToolCallView}, for a result card. */
export function snapshotToolResultView(value: unknown): CardSnapshot<ToolResultView> {
  return snapshot(value, 'result')
}

/** One content block, detached and checked like a card's; never throws. */
export function snapshotContentBlock(value: unknown): { ok: true; block: ContentBlock } | { ok: false; reason: string } {
  const card = snapshotToolResultView({ card: 'generic', content: [value] })
  if (card.ok) return { ok: true, block: (card.view as { content: ContentBlock[] }).content[0] as ContentBlock }
  const error = card.error
  if (!InvalidCardError.isInstance(error)) return { ok: false, reason: error.message }
  const at = error.path.replace(/^content\[0\]\.?/, '')
  return { ok: false, reason: at === '' ? error.reason : `${at}: ${error.reason}` }
}

/** Like {@link snapshotToolCallView}, but throws the card error (for the renderer and the ACP mapping). */
export function detachCallView(value: unknown): ToolCallView {
  const result = snapshotToolCallView(value)
  if (!result.ok) throw result.error
  return result.view
}

/** Like {@link detachCallView}, for a result card. */
export function detachResultView(value: unknown): ToolResultView {
  const result = snapshotToolResultView(value)
  if (!result.ok) throw result.error
  return result.view
}

/** What a consumer needs of a result, detached: its content (blocks that cannot be shown become notes), `isError`. */
export interface ResultSnapshot {
  readonly content: readonly ContentBlock[]
  readonly isError: boolean
  /** The first thing that could not be shown, in words; `undefined` when everything could. */
  readonly problem: string | undefined
}

function note(text: string): ContentBlock {
  return { type: 'text', text: `[${sanitizeLine(text)}]` }
}

/**
 * A result's `content` and `isError`, read once each and detached. Never throws: content that is not a list, or
 * cannot be read, becomes one note; each block that is not a well-formed content block becomes a note in its place.
 */
export function snapshotResult(result: unknown): ResultSnapshot {
  let isError = false
  let problem: string | undefined
  const content: ContentBlock[] = []
  try {
    const source = record(result, [])
    if (source !== undefined) {
      isError = own(source, 'isError', []) === true
      const raw = own(source, 'content', [])
      if (raw !== undefined && !isArray(raw, ['content'])) problem = 'the content is not a list of content blocks'
      const items = raw === undefined || problem !== undefined ? [] : (copyList(raw, ['content'], (item) => item) as unknown[])
      for (const [index, item] of items.entries()) {
        const block = snapshotContentBlock(item)
        if (block.ok) content.push(block.block)
        else {
          const text = `content block ${index} cannot be shown: ${block.reason}`
          problem ??= text
          content.push(note(text))
        }
      }
    } else if (result !== undefined) {
      problem = 'the result is not an object'
    }
  } catch (error) {
    const reason = error instanceof ReadFailure ? `${formatJsonPath([...error.path])}: ${error.reason}` : describeThrown(error)
    problem = `the result cannot be read: ${reason}`
    content.length = 0
  }
  if (problem !== undefined && content.length === 0) content.push(note(problem))
  return deepFreeze({ content, isError, problem }) as ResultSnapshot
}
