import type { ContentBlock, HookContext, PostToolDecision, PreToolDecision } from '@dsh/tools-core'
import { contentProblem, hookContextProblem } from './content-check.js'
import { describeValue } from './describe-value.js'
import { hasOwnField, readOwn } from './own-field.js'

/** The default of the `tools/pre-execute` waterfall. */
export const ALLOW: PreToolDecision = Object.freeze({ kind: 'allow' })
/** The default of the `tools/post-execute` waterfall. */
export const ACCEPT: PostToolDecision = Object.freeze({ kind: 'accept' })

function notADecision(value: unknown): string {
  if (value === undefined) return 'returned nothing (a listener returns a decision or the result of next())'
  return `returned ${describeValue(value)} instead of a decision`
}

/**
 * Reads a `tools/pre-execute` decision (already awaited) into a fresh object, or says what is wrong with it: not an
 * object, an unknown `kind`, a `deny` without a non-blank reason, an `ask` whose reason is not a string.
 */
export function readPreDecision(value: unknown): PreToolDecision | string {
  if (typeof value !== 'object' || value === null) return notADecision(value)
  const kind = readOwn(value, 'kind')
  const reason = readOwn(value, 'reason')
  switch (kind) {
    case 'allow':
      return ALLOW
    case 'deny':
      if (typeof reason === 'string' && reason.trim() !== '') return { kind: 'deny', reason }
      return `returned a deny decision without a reason (reason is ${describeValue(reason)})`
    case 'ask':
      if (reason === undefined) return { kind: 'ask' }
      if (typeof reason === 'string') return { kind: 'ask', reason }
      return `returned an ask decision whose reason is ${describeValue(reason)}`
    default:
      return `returned a decision of unknown kind ${describeValue(kind)}`
  }
}

/** The fields of a result an `accept` may replace or drop besides `content`. */
const replaceable = ['meta', 'structuredContent'] as const

function readContext(fields: object): HookContext | string | undefined {
  const context = readOwn(fields, 'additionalContext')
  if (context === undefined) return undefined
  const problem = hookContextProblem(context, 'additionalContext')
  if (problem !== undefined) return problem
  const content = readOwn(context as object, 'content', 'additionalContext.content')
  const source = readOwn(context as object, 'source', 'additionalContext.source')
  return source === undefined
    ? { content: content as ContentBlock[] }
    : { content: content as ContentBlock[], source: source as string }
}

/**
 * Reads a `tools/post-execute` decision into a fresh object, or says what is wrong with it: not an object, an
 * unknown `kind`, content or feedback that is not content blocks, a malformed `additionalContext`. For `accept`,
 * each of `content`, `meta` and `structuredContent` is copied only when it is an own field of the decision, so that
 * one set to `undefined` stays present and drops the field (`meta` and `structuredContent` are checked as lossless
 * JSON when the result is materialized).
 */
export function readPostDecision(value: unknown): PostToolDecision | string {
  if (typeof value !== 'object' || value === null) return notADecision(value)
  const fields = value
  const kind = readOwn(fields, 'kind')
  if (kind !== 'accept' && kind !== 'block') return `returned a decision of unknown kind ${describeValue(kind)}`
  const context = readContext(fields)
  if (typeof context === 'string') return `returned a ${kind} decision whose ${context}`
  if (kind === 'block') {
    const feedback = readOwn(fields, 'feedback')
    const problem = contentProblem(feedback, 'feedback')
    if (problem !== undefined) return `returned a block decision whose ${problem}`
    return context === undefined
      ? { kind, feedback: feedback as ContentBlock[] }
      : { kind, feedback: feedback as ContentBlock[], additionalContext: context }
  }
  const content = readOwn(fields, 'content')
  if (content !== undefined) {
    const problem = contentProblem(content, 'content')
    if (problem !== undefined) return `returned an accept decision whose ${problem}`
  }
  const decision: PostToolDecision = { kind }
  if (content !== undefined || hasOwnField(fields, 'content')) decision.content = content as ContentBlock[] | undefined
  for (const key of replaceable) {
    const value = readOwn(fields, key)
    if (value !== undefined || hasOwnField(fields, key)) decision[key] = value
  }
  if (context !== undefined) decision.additionalContext = context
  return decision
}
