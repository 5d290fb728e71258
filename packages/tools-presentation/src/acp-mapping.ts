import {
  snapshotJson,
  type CodeCallView,
  type CodeResultView,
  type CodeRunStatus,
  type ContentBlock,
  type FileDiff,
  type FileLocation,
  type ToolCallView,
  type ToolResult,
  type ToolResultView,
} from '@dsh/tools-core'
import type {
  AcpAnnotations,
  AcpContentBlock,
  AcpEmbeddedResource,
  AcpSessionNotification,
  AcpTerminalMeta,
  AcpToolCall,
  AcpToolCallContent,
  AcpToolCallLocation,
  AcpToolCallUpdate,
  AcpToolKind,
} from './acp-types.js'
import { diffLocations, durationText, subCallCountText, taskProgressText } from './card-builders.js'
import { detachCallView, detachResultView, snapshotResult } from './card-snapshot.js'
import { contentText } from './content-text.js'
import { fencedBlock, markdownCode, markdownLine, markdownText } from './markdown-text.js'
import { checkSessionCwd, relativizeTitle, resolveSessionPath } from './relativize-title.js'

/** How the mapping renders cards for one ACP session. */
export interface AcpMappingOptions {
  /**
   * The session's working directory (absolute): titles show paths inside it relative, relative paths resolve
   * against it.
   */
  cwd: string
  /**
   * The client announced the terminal `_meta` convention (see {@link clientSupportsTerminalOutput}). When true,
   * terminal cards become live terminals; when false, a terminal result is a fenced `console` block.
   */
  terminalOutput?: boolean | undefined
}

/** A pending call to announce with {@link toAcpToolCall}. */
export interface AcpToolCallInput {
  /** The call's id (the model's call id); also the terminal id of a terminal card. */
  toolCallId: string
  /** The card for the call (from `presentToolCall`). */
  view: ToolCallView
  /** The tool's name, sent as ACP `name`. */
  name?: string | undefined
  /** The call's arguments, sent as `rawInput` when they are lossless JSON (a generic card's `rawInput` wins). */
  rawInput?: unknown
  /** `pending` (the default: streaming, or waiting for approval) or `in_progress`. */
  status?: 'pending' | 'in_progress' | undefined
}

/** A completed call to report with {@link toAcpToolCallUpdate}. */
export interface AcpToolResultInput {
  /** The call's id. */
  toolCallId: string
  /** The card the call was announced with: a terminal result only streams into a terminal a terminal card opened. */
  call: ToolCallView
  /** The card for the result (from `presentToolResult`). */
  view: ToolResultView
  /** The result: its content is the default content of a generic card; `isError` makes the status `failed`. */
  result: Pick<ToolResult, 'content' | 'isError'>
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * True when an ACP client's `initialize` capabilities announce the terminal `_meta` convention:
 * `clientCapabilities._meta.terminal_output === true`.
 */
export function clientSupportsTerminalOutput(clientCapabilities: unknown): boolean {
  if (!isRecord(clientCapabilities)) return false
  const meta = clientCapabilities['_meta']
  return isRecord(meta) && meta['terminal_output'] === true
}

function toAcpAnnotations(annotations: ContentBlock['annotations']): AcpAnnotations | undefined {
  if (annotations === undefined) return undefined
  const copy: AcpAnnotations = {}
  if (annotations.audience !== undefined) copy.audience = [...annotations.audience]
  if (annotations.lastModified !== undefined) copy.lastModified = annotations.lastModified
  if (annotations.priority !== undefined) copy.priority = annotations.priority
  return copy
}

/** One content block in ACP's shape (field by field, so nothing outside the protocol leaks through). */
export function toAcpContentBlock(block: ContentBlock): AcpContentBlock {
  let acp: AcpContentBlock
  switch (block.type) {
    case 'text':
      acp = { type: 'text', text: block.text }
      break
    case 'image':
      acp = { type: 'image', data: block.data, mimeType: block.mimeType }
      break
    case 'audio':
      acp = { type: 'audio', data: block.data, mimeType: block.mimeType }
      break
    case 'resource_link': {
      const link: AcpContentBlock = { type: 'resource_link', uri: block.uri, name: block.name }
      if (block.title !== undefined) link.title = block.title
      if (block.description !== undefined) link.description = block.description
      if (block.mimeType !== undefined) link.mimeType = block.mimeType
      if (block.size !== undefined) link.size = block.size
      acp = link
      break
    }
    case 'resource': {
      const source = block.resource
      const resource: AcpEmbeddedResource['resource'] =
        'text' in source ? { uri: source.uri, text: source.text } : { uri: source.uri, blob: source.blob }
      if (source.mimeType !== undefined) resource.mimeType = source.mimeType
      acp = { type: 'resource', resource }
      break
    }
  }
  const annotations = toAcpAnnotations(block.annotations)
  if (annotations !== undefined) acp.annotations = annotations
  return acp
}

function contentItems(blocks: readonly ContentBlock[]): AcpToolCallContent[] {
  return blocks.map((block) => ({ type: 'content', content: toAcpContentBlock(block) }))
}

function diffItems(diffs: readonly FileDiff[], cwd: string): AcpToolCallContent[] {
  return diffs.map((diff) => ({
    type: 'diff',
    path: resolveSessionPath(diff.path, cwd),
    oldText: diff.oldText,
    newText: diff.newText,
  }))
}

function locationItems(locations: readonly FileLocation[], cwd: string): AcpToolCallLocation[] {
  return locations.map((location) =>
    location.line === undefined
      ? { path: resolveSessionPath(location.path, cwd) }
      : { path: resolveSessionPath(location.path, cwd), line: location.line },
  )
}

/** How a command ended, as {@link formatConsoleBlock} takes it (a terminal result card fits). */
export interface ConsoleBlockExit {
  /** The exit code; `null` or absent when unknown or a signal ended the process. */
  exitCode?: number | null | undefined
  /** The signal that ended the process. */
  signal?: string | null | undefined
  /** True when the command ran past its timeout. */
  timedOut?: boolean | undefined
}

/** A signal name as it is; any other string a tool put there as inline code, so it cannot add Markdown structure. */
function signalText(signal: string): string {
  return /^[A-Za-z0-9+-]{1,64}$/.test(signal) ? signal : markdownCode(signal)
}

/** The exit status in words, or `undefined` when nothing is known. */
function describeExit(view: ConsoleBlockExit): string | undefined {
  const parts: string[] = []
  if (view.timedOut === true) parts.push('Timed out')
  if (typeof view.signal === 'string') {
    parts.push(view.signal === '' ? 'killed by a signal' : `killed by signal ${signalText(view.signal)}`)
  }
  else if (typeof view.exitCode === 'number') parts.push(`exited with code ${view.exitCode}`)
  if (parts.length === 0) return undefined
  const sentence = parts.join('; ')
  return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`
}

/**
 * The Markdown a client without terminal support gets for a command's output: the output in a fenced `console`
 * block (the fence is longer than any backtick run inside, so no output can close it early: the block holds exactly
 * the output), then how the command ended (`Exited with code 3.`, `Timed out; killed by signal SIGTERM.`) when that
 * is known, on one line: a signal that is not a plain signal name is shown as inline code, so it cannot add Markdown
 * structure.
 */
export function formatConsoleBlock(output: string, exit: ConsoleBlockExit = {}): string {
  const block = fencedBlock(output, 'console')
  const status = describeExit(exit)
  return status === undefined ? block : `${block}\n\n${status}`
}

function jsonOrUndefined(value: unknown): unknown {
  if (value === undefined) return undefined
  const snapshot = snapshotJson(value)
  return snapshot.ok ? snapshot.value : undefined
}

function callKind(view: ToolCallView): AcpToolKind {
  switch (view.card) {
    case 'generic':
      return view.kind ?? 'other'
    case 'terminal':
    case 'code':
      return 'execute'
    case 'diff':
      return 'edit'
  }
}

/** A text content item. */
function textItem(text: string): AcpToolCallContent {
  return { type: 'content', content: { type: 'text', text } }
}

/** A code card's program as a fenced block (`ts` or `js`), so a client shows it as code, exactly. */
function programItem(view: CodeCallView): AcpToolCallContent {
  return textItem(fencedBlock(view.code, view.language === 'typescript' ? 'ts' : 'js'))
}

const CODE_RUN_ENDINGS: Readonly<Record<CodeRunStatus, string>> = {
  completed: 'completed',
  error: 'failed with an error',
  timeout: 'timed out',
  memory: 'ran out of memory',
  aborted: 'was aborted',
}

/**
 * A code run's result as text items: how it ended (`The program completed (1.2 s, 3 sub-calls, 1 failed).`) with
 * the error in words, the list of sub-calls (ACP has no parent link, so the nesting is shown as a list), the logs and
 * the returned value in fenced `text` blocks.
 */
function codeResultItems(view: CodeResultView): AcpToolCallContent[] {
  const facts = [...(view.durationMs === undefined ? [] : [durationText(view.durationMs)]), subCallCountText(view.subCalls)]
  const heading = `The program ${CODE_RUN_ENDINGS[view.status]} (${facts.join(', ')}).`
  const items = [textItem(view.error === undefined ? heading : `${heading}\n\n${markdownText(view.error)}`)]
  if (view.subCalls.length > 0) {
    const list = view.subCalls.map((call) => {
      if (!call.isError) return `- ✓ ${markdownCode(call.name)}`
      return `- ✗ ${markdownCode(call.name)}${call.code === undefined ? ' failed' : ` ${markdownLine(call.code)}`}`
    })
    items.push(textItem(`Sub-calls:\n\n${list.join('\n')}`))
  }
  if (view.logs !== undefined && view.logs.length > 0) items.push(textItem(`Logs:\n\n${fencedBlock(view.logs, 'text')}`))
  if (view.value !== undefined && view.value.length > 0) items.push(textItem(`Returned:\n\n${fencedBlock(view.value, 'text')}`))
  return items
}

/**
 * The ACP `tool_call` session update announcing a call: `kind` from the card (`execute` for a terminal or code card,
 * `edit` for a diff card), the title with paths inside the session cwd shown relative, content (a generic card's
 * blocks, a diff card's `{ type: 'diff' }` items, a code card's description and program in a fenced `ts`/`js`
 * block), absolute locations, and `rawInput`. A terminal card, when the client
 * announced the terminal `_meta` convention, embeds a terminal (`{ type: 'terminal', terminalId: toolCallId }`)
 * created by `_meta.terminal_info`. Throws `UnknownCardError` (`UNKNOWN_CARD`) for a value that is not a card,
 * `InvalidCardError` (`INVALID_CARD`) for a malformed one, and `PresentationOptionsError` for a relative `cwd`.
 */
export function toAcpToolCall(input: AcpToolCallInput, options: AcpMappingOptions): AcpToolCall {
  const { toolCallId } = input
  const view = detachCallView(input.view)
  const { cwd } = options
  checkSessionCwd(cwd)
  const update: AcpToolCall = {
    sessionUpdate: 'tool_call',
    toolCallId,
    title: markdownLine(relativizeTitle(view.title, cwd)),
    kind: callKind(view),
    status: input.status ?? 'pending',
  }
  if (input.name !== undefined) update.name = input.name

  let content: AcpToolCallContent[] = []
  let locations: AcpToolCallLocation[] = []
  let rawInput = input.rawInput
  switch (view.card) {
    case 'generic':
      content = contentItems(view.content ?? [])
      locations = locationItems(view.locations ?? [], cwd)
      if (view.rawInput !== undefined) rawInput = view.rawInput
      break
    case 'terminal':
      if (view.description !== undefined && view.description.length > 0) {
        content.push({ type: 'content', content: { type: 'text', text: markdownText(view.description) } })
      }
      if (options.terminalOutput === true) {
        content.push({ type: 'terminal', terminalId: toolCallId })
        update._meta = {
          terminal_info: { terminal_id: toolCallId, cwd: resolveSessionPath(view.cwd ?? cwd, cwd) },
        }
      }
      break
    case 'diff':
      content = diffItems(view.diffs, cwd)
      locations = locationItems(view.locations ?? diffLocations(view.diffs), cwd)
      break
    case 'code':
      if (view.description !== undefined && view.description.length > 0) content.push(textItem(markdownText(view.description)))
      content.push(programItem(view))
      break
  }
  if (content.length > 0) update.content = content
  if (locations.length > 0) update.locations = locations
  const json = jsonOrUndefined(rawInput)
  if (json !== undefined) update.rawInput = json
  return update
}

/**
 * The ACP `tool_call_update` session update completing a call: status `completed` or `failed` (`result.isError`),
 * the result card's title (relativized) when it has one, and its content, which REPLACES the call's:
 * - `generic`: the card's content blocks, else the result's (left out when empty, keeping the call's content);
 * - `diff`: one `{ type: 'diff' }` item per file;
 * - `task`: the status line and the output in a fenced `console` block;
 * - `code`: the program again (when the call was a code card), the run's status line with its error, the sub-call
 *   list (ACP has no parent link: the nesting is shown as a list), the logs and the returned value in fenced blocks;
 * - `terminal`, when the client announced the terminal `_meta` convention and the call was a terminal card: no
 *   `content` (it would replace the terminal block) but `_meta.terminal_output` (the output) and
 *   `_meta.terminal_exit` (`exit_code`, `signal`); otherwise (no support, or the call opened no terminal) the
 *   generic fallback: the output as a fenced `console` block followed by the exit status in words.
 * Throws `UnknownCardError` (`UNKNOWN_CARD`) when `view` or `call` is not a card, `InvalidCardError`
 * (`INVALID_CARD`) when one is malformed.
 */
export function toAcpToolCallUpdate(input: AcpToolResultInput, options: AcpMappingOptions): AcpToolCallUpdate {
  const { toolCallId } = input
  const view = detachResultView(input.view)
  const call = detachCallView(input.call)
  const result = snapshotResult(input.result)
  const { cwd } = options
  checkSessionCwd(cwd)
  const update: AcpToolCallUpdate = {
    sessionUpdate: 'tool_call_update',
    toolCallId,
    status: result.isError ? 'failed' : 'completed',
  }
  if (view.title !== undefined) update.title = markdownLine(relativizeTitle(view.title, cwd))

  switch (view.card) {
    case 'generic': {
      const content = contentItems(view.content ?? result.content)
      if (content.length > 0) update.content = content
      break
    }
    case 'diff':
      update.content = diffItems(view.diffs, cwd)
      break
    case 'task': {
      const amount = view.progress === undefined ? '' : ` (${taskProgressText(view.progress)})`
      const heading = `Task ${view.taskId}: ${view.status.replace('_', ' ')}${view.statusMessage === undefined ? '' : ` — ${view.statusMessage}`}${amount}`
      const output = view.output ?? contentText(result.content)
      const text = output.length === 0 ? markdownLine(heading) : `${markdownLine(heading)}\n\n${fencedBlock(output, 'console')}`
      update.content = [{ type: 'content', content: { type: 'text', text } }]
      break
    }
    case 'code':
      // The update's content replaces the call's: the program is sent again, so it stays on the card.
      update.content = [...(call.card === 'code' ? [programItem(call)] : []), ...codeResultItems(view)]
      break
    case 'terminal': {
      const output = view.output ?? contentText(result.content)
      if (options.terminalOutput === true && call.card === 'terminal') {
        const meta: AcpTerminalMeta = {}
        if (output.length > 0) meta.terminal_output = { terminal_id: toolCallId, data: output }
        meta.terminal_exit = { terminal_id: toolCallId, exit_code: view.exitCode ?? null, signal: view.signal ?? null }
        update._meta = meta
      } else {
        update.content = [{ type: 'content', content: { type: 'text', text: formatConsoleBlock(output, view) } }]
      }
      break
    }
  }
  return update
}

/** The params of an ACP `session/update` notification: `{ sessionId, update }`. */
export function toAcpSessionNotification<Update extends AcpToolCall | AcpToolCallUpdate>(
  sessionId: string,
  update: Update,
): AcpSessionNotification<Update> {
  return { sessionId, update }
}
