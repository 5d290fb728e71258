import type {
  AgentInjectOptions,
  ContentBlock,
  ToolApprovalOutcome,
  ToolApprovalRequest,
  ToolCallView,
  ToolExecution,
  ToolExecutionResult,
} from '@dsh/tools-core'
import {
  genericCallFallback,
  genericResultFallback,
  presentToolCall,
  presentToolResult,
  renderToolCall,
  renderToolResult,
  type PresentableTool,
} from '@dsh/tools-presentation'
import type { ScriptedSession, SessionEvent } from '@dsh/tools-testing'

/** What the demo shows while a session runs. The text reporter draws cards; the JSON reporter writes events. */
export interface DemoReporter {
  /** The session is about to start, with the tools the model is shown. */
  start(info: { readonly workspace: string; readonly tools: readonly string[] }): void
  /** The model answers step `step`; `say` is what it tells the user. */
  turn(step: number, say: string): void
  /** A session event: a call, a result, or context appended for the next request. */
  event(event: SessionEvent): void
  /** The approval service answered a request. */
  approval(request: ToolApprovalRequest, outcome: ToolApprovalOutcome): void
  /** A call made from inside another call (a `run_code` program's sub-call) ended. */
  subCall(exec: Readonly<ToolExecution>, result: ToolExecutionResult): void
  /** A tool injected a notice into the agent (it reaches the model's next request). */
  notice(content: readonly ContentBlock[], options: AgentInjectOptions): void
  /** The session ended. */
  finish(session: ScriptedSession): void
}

/** Options of {@link createTextReporter}. */
export interface TextReporterOptions {
  /** Writes one line (without its line break). */
  readonly write: (line: string) => void
  /** ANSI colours (the cards' own and the demo's). */
  readonly color: boolean
  /** The tool a call reached, for its presenters; `undefined` for an unknown tool (the generic card is used). */
  readonly lookup: (name: string) => PresentableTool | undefined
}

type Tone = 'bold' | 'dim' | 'cyan' | 'yellow' | 'magenta'
const SGR: Record<Tone, readonly [string, string]> = {
  bold: ['\u001b[1m', '\u001b[22m'],
  dim: ['\u001b[2m', '\u001b[22m'],
  cyan: ['\u001b[36m', '\u001b[39m'],
  yellow: ['\u001b[33m', '\u001b[39m'],
  magenta: ['\u001b[35m', '\u001b[39m'],
}

function contentText(content: readonly ContentBlock[]): string {
  return content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('\n')
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`
}

function indented(prefix: string, text: string): string[] {
  return text.split('\n').map((line, index) => (index === 0 ? `${prefix}${line}` : `${' '.repeat(prefix.length)}${line}`))
}

/**
 * The terminal transcript: for each step the model's words, then every call and result as the cards of
 * `@dsh/tools-presentation` (the tool's own presenters, or the generic card when it has none, it failed, or the
 * tool does not exist), with the error code under a failed result, approvals, notices and appended context.
 */
export function createTextReporter(options: TextReporterOptions): DemoReporter {
  const { write, color, lookup } = options
  const paint = (tone: Tone, text: string): string => (color ? `${SGR[tone][0]}${text}${SGR[tone][1]}` : text)
  const calls = new Map<string, { readonly arguments: unknown; readonly view: ToolCallView }>()
  const codes: string[] = []
  /** The calls the approval service was asked about. */
  const asked = new Set<string>()
  let results = 0

  return {
    start({ workspace, tools }) {
      write(paint('bold', 'echo-agent: a scripted model drives real tools through the dsh tools pipeline'))
      write(`${paint('dim', 'workspace')} ${workspace}`)
      write(`${paint('dim', 'tools')}     ${tools.join(', ')}`)
    },
    turn(step, say) {
      write('')
      write(paint('bold', `── step ${step} `) + paint('dim', '─'.repeat(Math.max(0, 60 - String(step).length))))
      for (const line of indented('model: ', say)) write(paint('magenta', line))
    },
    event(event) {
      switch (event.type) {
        case 'tool/call': {
          const tool = lookup(event.name)
          const view = tool === undefined ? genericCallFallback(event.name, event.arguments) : presentToolCall(tool, event.arguments)
          calls.set(event.callId, { arguments: event.arguments, view })
          const batch = paint('dim', event.mode === 'parallel' ? `  (${event.callId}, parallel-safe)` : `  (${event.callId})`)
          const [header = '', ...body] = renderToolCall(view, { color })
          write(header + batch)
          for (const line of body) write(line)
          break
        }
        case 'tool/result': {
          const call = calls.get(event.callId)
          const tool = lookup(event.name)
          const { result } = event
          const view = tool === undefined ? genericResultFallback(result) : presentToolResult(tool, call?.arguments, result)
          for (const line of renderToolResult(view, { call: call?.view, result, color })) write(line)
          if (result.isError) {
            const code = result.error?.code ?? 'TOOL_FAILED'
            codes.push(code)
            write(`  ${paint('yellow', `↳ ${code}`)}${paint('dim', result.error === undefined ? '' : ` (${result.error.name})`)}`)
            // Guards run before any approval request: a call a guard denies is never put to a person.
            if (code === 'GUARD_DENIED' && !asked.has(event.callId)) write(paint('cyan', '? approval: nobody was asked (the guard denied the call first)'))
          }
          results += 1
          break
        }
        case 'context/message':
          for (const line of indented(`+ context for the next request${event.source === undefined ? '' : ` (${event.source})`}: `, contentText(event.content))) {
            write(paint('cyan', line))
          }
          break
      }
    },
    approval(request, outcome) {
      asked.add(request.execution.callId)
      const answer = outcome.outcome === 'allowed-once' ? 'approved once' : outcome.outcome
      write(paint('cyan', `? approval: ${request.tool.name}, because ${request.reason ?? 'a policy asked'} → ${answer}`))
    },
    subCall(exec, result) {
      const outcome = result.isError ? paint('yellow', result.error?.code ?? 'TOOL_FAILED') : 'ok'
      const first = contentText(result.content).split('\n', 1)[0] ?? ''
      const shown = first.length > 70 ? `${first.slice(0, 67)}...` : first
      write(`  ${paint('dim', '↳')} ${exec.name} ${outcome}${paint('dim', `  (${exec.callId})`)}${shown === '' ? '' : paint('dim', ` ${shown}`)}`)
    },
    notice(content, { source }) {
      for (const line of indented(`+ notice from ${source.plugin}: `, contentText(content))) write(paint('cyan', line))
    },
    finish(session) {
      write('')
      const steps = session.steps.length
      const failed = codes.length
      write(
        paint('bold', `session ${session.stopReason}: `) +
          `${count(steps, 'step')}, ${count(results, 'call')}, ${results - failed} ok, ${failed} failed` +
          (failed > 0 ? ` (${[...new Set(codes)].join(', ')})` : ''),
      )
    },
  }
}

/**
 * `--json`: each session event as one line of JSON (`tool/call`, `tool/result`, `context/message`), exactly the
 * frozen, JSON-safe events the loop recorded. Nothing else is written to the stream.
 */
export function createJsonReporter(write: (line: string) => void): DemoReporter {
  return {
    start() {},
    turn() {},
    event(event) {
      write(JSON.stringify(event))
    },
    approval() {},
    // A program's sub-calls are in its result's meta (subCalls); the stream holds the session's own events only.
    subCall() {},
    notice() {},
    finish() {},
  }
}
