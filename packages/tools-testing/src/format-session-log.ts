import type { ContentBlock } from '@dsh/tools-core'
import type { SessionEvent } from './session-log.js'

function describeArguments(value: unknown): string {
  try {
    const json = JSON.stringify(value)
    if (json !== undefined) return json
  } catch {
    // Cycles and BigInts: fall through to a description.
  }
  return `<${value === undefined ? 'undefined' : typeof value}>`
}

/** The text of content blocks: text as it is, other blocks as `[type]`. */
export function contentText(content: readonly ContentBlock[]): string {
  return content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('')
}

function indent(text: string): string {
  return text.replaceAll('\n', '\n    ')
}

/**
 * Renders a session log as plain text, one line per event (continuation lines of multi-line text indented), for
 * readable snapshots and failure messages:
 *
 * ```text
 * step 1
 *   tool/call call_1 read {"path":"a.txt"} (batch 1, parallel)
 *   tool/call call_2 grep {"pattern":"x"} (batch 1, parallel)
 *   tool/result call_1 ok: hello
 *   tool/result call_2 error INVALID_ARGS: pattern must not be empty
 *   context/message call_1 (audit): remember to cite the file
 * ```
 */
export function formatSessionLog(log: readonly SessionEvent[]): string {
  const lines: string[] = []
  let step: number | undefined
  for (const event of log) {
    if (event.step !== step) {
      step = event.step
      lines.push(`step ${step}`)
    }
    switch (event.type) {
      case 'tool/call':
        lines.push(`  tool/call ${event.callId} ${event.name} ${describeArguments(event.arguments)} (batch ${event.batch}, ${event.mode})`)
        break
      case 'tool/result': {
        const { result } = event
        const status = result.isError ? `error ${result.error?.code ?? 'UNKNOWN'}` : 'ok'
        lines.push(`  tool/result ${event.callId} ${status}: ${indent(contentText(result.content))}`)
        break
      }
      case 'context/message': {
        const source = event.source === undefined ? '' : ` (${event.source})`
        lines.push(`  context/message ${event.callId}${source}: ${indent(contentText(event.content))}`)
        break
      }
    }
  }
  return lines.join('\n')
}
