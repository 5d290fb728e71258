import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'

function millis(span: ReadableSpan): string {
  const ms = span.duration[0] * 1e3 + span.duration[1] / 1e6
  return ms < 10 ? `${ms.toFixed(2)} ms` : `${Math.round(ms)} ms`
}

function startOf(span: ReadableSpan): number {
  return span.startTime[0] * 1e9 + span.startTime[1]
}

function describe(span: ReadableSpan): string {
  const attributes = span.attributes
  const parts = [span.name]
  const outcome = attributes['dsh.tool.outcome'] ?? attributes['error.type'] ?? attributes['dsh.tool.approval.outcome'] ?? attributes['dsh.task.status']
  if (outcome !== undefined) parts.push(`[${String(outcome)}]`)
  if (attributes['dsh.tool.policy.decision'] === 'ask') parts.push('asked')
  const replaced = attributes['dsh.tool.review.replaced']
  if (Array.isArray(replaced)) parts.push(`review replaced ${replaced.join(', ')}`)
  if (span.links.length > 0) parts.push(`(linked to ${span.links.length} call${span.links.length === 1 ? '' : 's'})`)
  parts.push(`· ${millis(span)}`)
  return parts.join(' ')
}

/**
 * The spans of a session as an indented tree, oldest root first: each call's `execute_tool` span with its outcome,
 * its approval and body spans, a program's sub-calls under its `run_code` span, tasks as roots linked to their call.
 */
export function formatSpanTree(spans: readonly ReadableSpan[]): string[] {
  const ids = new Set(spans.map((span) => span.spanContext().spanId))
  const children = new Map<string, ReadableSpan[]>()
  const roots: ReadableSpan[] = []
  for (const span of [...spans].sort((a, b) => startOf(a) - startOf(b))) {
    const parent = span.parentSpanContext?.spanId
    if (parent === undefined || !ids.has(parent)) roots.push(span)
    else children.set(parent, [...(children.get(parent) ?? []), span])
  }
  const lines: string[] = []
  const walk = (span: ReadableSpan, depth: number): void => {
    lines.push(`${'  '.repeat(depth)}${describe(span)}`)
    for (const child of children.get(span.spanContext().spanId) ?? []) walk(child, depth + 1)
  }
  for (const root of roots) walk(root, 0)
  return lines
}
