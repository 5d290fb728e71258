// Property tests of the policy order: for random stacks of listeners, approvals, guards, wrappers and post
// listeners, raw and defineTool tools, and arguments that do or do not validate, the outcome and its code follow
// the rules, nothing after a denial runs the body, nobody is asked about a call that a guard denies or whose
// arguments do not validate, and no listener sees arguments of a defineTool tool that do not validate.
import { DshError, type ErrorCode, type PostToolDecision, type PreToolDecision, type ToolExecutionResult } from '@dsh/tools-core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { defineTool } from './index.js'
import { agent, call, createHarness, isDeepFrozen, load, textOf } from './test-kit.js'

const harnessFault =
  'This is a fault in the harness, not in your arguments; calling again with the same or other arguments will fail the same way until it is fixed.'

type Pre = 'next' | 'allow' | 'deny' | 'ask' | 'malformed' | 'nothing' | 'throw' | 'override-allow' | 'override-deny' | 'double-next'
type Approval = 'none' | 'allowed-once' | 'rejected' | 'cancelled' | 'unavailable' | 'throw' | 'invalid'
/** `deny-late` passes the first check and denies the one after a granted approval (state changed meanwhile). */
type Guard = 'pass' | 'deny' | 'throw' | 'malformed' | 'deny-late'
type ToolKind = 'raw' | 'defined'
type Wrapper = 'next' | 'short' | 'garbage' | 'throw-before' | 'throw-after' | 'replace'
type Body = 'ok' | 'throw' | 'coded' | 'invalid'
type Post = 'next' | 'accept' | 'accept-content' | 'block' | 'malformed' | 'throw'

interface Scenario {
  tool: ToolKind
  validArgs: boolean
  pre: { behaviour: Pre; async: boolean }[]
  hasAgent: boolean
  approval: Approval
  guards: Guard[]
  wrappers: { behaviour: Wrapper; async: boolean }[]
  body: Body
  post: { behaviour: Post; async: boolean }[]
}

interface Expected {
  code: ErrorCode | null
  text?: string
  bodyRan: boolean
  /** Whether the approval service was asked. */
  asked: boolean
}

class CodedError extends DshError {
  override readonly name = 'CodedError'
}

const scenario: fc.Arbitrary<Scenario> = fc.record({
  tool: fc.constantFrom<ToolKind>('raw', 'defined'),
  validArgs: fc.boolean(),
  pre: fc.array(
    fc.record({
      behaviour: fc.constantFrom<Pre>('next', 'allow', 'deny', 'ask', 'malformed', 'nothing', 'throw', 'override-allow', 'override-deny', 'double-next'),
      async: fc.boolean(),
    }),
    { maxLength: 4 },
  ),
  hasAgent: fc.boolean(),
  approval: fc.constantFrom<Approval>('none', 'allowed-once', 'rejected', 'cancelled', 'unavailable', 'throw', 'invalid'),
  guards: fc.array(fc.constantFrom<Guard>('pass', 'pass', 'deny', 'throw', 'malformed', 'deny-late'), { maxLength: 3 }),
  wrappers: fc.array(
    fc.record({ behaviour: fc.constantFrom<Wrapper>('next', 'next', 'short', 'garbage', 'throw-before', 'throw-after', 'replace'), async: fc.boolean() }),
    { maxLength: 3 },
  ),
  body: fc.constantFrom<Body>('ok', 'ok', 'throw', 'coded', 'invalid'),
  post: fc.array(
    fc.record({ behaviour: fc.constantFrom<Post>('next', 'accept', 'accept-content', 'block', 'malformed', 'throw'), async: fc.boolean() }),
    { maxLength: 3 },
  ),
})

const validArgs = { n: 1 }
const invalidArgs = { n: 'one' }

/** The first guard that decides in a check (`late`: the one after a granted approval), as the code it gives. */
function guardCode(guards: readonly Guard[], late: boolean): ErrorCode | null {
  const guard = guards.find((behaviour) => behaviour !== 'pass' && (late || behaviour !== 'deny-late'))
  if (guard === undefined) return null
  return guard === 'deny' || guard === 'deny-late' ? 'GUARD_DENIED' : 'INVALID_DECISION'
}

/** The rules, written as directly as possible. */
function expected(s: Scenario): Expected {
  // 1. A defineTool tool's arguments are checked before anyone sees the call (raw tools are not checked).
  if (s.tool === 'defined' && !s.validArgs) return { code: 'INVALID_ARGS', bodyRan: false, asked: false }
  let poisoned = false
  const pre = (index: number): PreToolDecision['kind'] => {
    const layer = s.pre[index]
    if (layer === undefined) return 'allow'
    switch (layer.behaviour) {
      case 'next':
        return pre(index + 1)
      case 'allow':
      case 'deny':
      case 'ask':
        return layer.behaviour
      case 'override-allow':
        pre(index + 1)
        return 'allow'
      case 'override-deny':
        pre(index + 1)
        return 'deny'
      case 'double-next':
        pre(index + 1)
        poisoned = true
        return 'deny'
      default:
        poisoned = true
        return 'deny'
    }
  }
  // 2. The pre-execute waterfall.
  const decision = pre(0)
  if (poisoned) return { code: 'INVALID_DECISION', bodyRan: false, asked: false }
  if (decision === 'deny') return { code: 'DENIED', bodyRan: false, asked: false }
  // 3. The guards, before any person is asked.
  const early = guardCode(s.guards, false)
  if (early !== null) return { code: early, bodyRan: false, asked: false }
  // 4. For ask: the approval service, then the guards once more.
  let asked = false
  if (decision === 'ask') {
    if (!s.hasAgent) return { code: 'APPROVAL_NO_AGENT', bodyRan: false, asked }
    asked = s.approval !== 'none'
    const approvalCodes: Record<Approval, ErrorCode | null> = {
      none: 'APPROVAL_NO_SERVICE',
      'allowed-once': null,
      rejected: 'APPROVAL_REJECTED',
      cancelled: 'APPROVAL_CANCELLED',
      unavailable: 'APPROVAL_UNAVAILABLE',
      throw: 'APPROVAL_UNAVAILABLE',
      invalid: 'APPROVAL_UNAVAILABLE',
    }
    const code = approvalCodes[s.approval]
    if (code !== null) return { code, bodyRan: false, asked }
    const late = guardCode(s.guards, true)
    if (late !== null) return { code: late, bodyRan: false, asked }
  }

  let bodyRan = false
  const dispatch = (index: number): { code: ErrorCode | null; text: string } => {
    const layer = s.wrappers[index]
    if (layer === undefined) {
      bodyRan = true
      const bodyCodes: Record<Body, { code: ErrorCode | null; text: string }> = {
        ok: { code: null, text: 'body' },
        throw: { code: 'TOOL_FAILED', text: 'Tool "t" failed: Error: body failed' },
        coded: { code: 'INVALID_ARGS', text: 'coded failure' },
        invalid:
          s.tool === 'raw'
            ? {
                code: 'INVALID_RESULT',
                text:
                  'The call to "t" ran, but the tool returned the number 42, not content blocks or { content, meta }, so there is no ' +
                  'result to show. This is a fault in the tool, not in your arguments; calling it again is unlikely to help.',
              }
            : { code: 'INVALID_TOOL_OUTPUT', text: '' },
      }
      return bodyCodes[s.body]
    }
    switch (layer.behaviour) {
      case 'next':
        return dispatch(index + 1)
      case 'short':
        return { code: null, text: 'short' }
      case 'garbage':
        return {
          code: 'INVALID_RESULT',
          text:
            'The call to "t" failed in the harness: a tools/execute wrapper returned the string "garbage" instead of a result; ' +
            `whether the tool ran is not known. ${harnessFault}`,
        }
      case 'throw-before':
        return { code: 'TOOL_FAILED', text: `The call to "t" failed in the harness: a tools/execute wrapper threw: Error: wrapper failed; whether the tool ran is not known. ${harnessFault}` }
      case 'throw-after':
        dispatch(index + 1)
        return { code: 'TOOL_FAILED', text: `The call to "t" failed in the harness: a tools/execute wrapper threw: Error: wrapper failed; whether the tool ran is not known. ${harnessFault}` }
      case 'replace':
        dispatch(index + 1)
        return { code: null, text: 'replaced' }
    }
  }
  const dispatched = dispatch(0)

  let postPoisoned = false
  const post = (index: number): PostToolDecision['kind'] | 'accept-content' => {
    const layer = s.post[index]
    if (layer === undefined) return 'accept'
    switch (layer.behaviour) {
      case 'next':
        return post(index + 1)
      case 'accept':
      case 'accept-content':
      case 'block':
        return layer.behaviour
      default:
        postPoisoned = true
        return 'block'
    }
  }
  const reviewed = post(0)
  if (postPoisoned) return { code: 'INVALID_DECISION', bodyRan, asked }
  if (reviewed === 'block') return { code: 'POST_EXECUTE_BLOCKED', text: 'blocked', bodyRan, asked }
  if (reviewed === 'accept-content') return { code: dispatched.code, text: 'post content', bodyRan, asked }
  return { code: dispatched.code, ...(dispatched.text === '' ? {} : { text: dispatched.text }), bodyRan, asked }
}

const later = <T>(async: boolean, value: () => T | PromiseLike<T>): T | PromiseLike<T> =>
  async ? Promise.resolve().then(value) : value()

describe('policy order (property tests)', () => {
  it('for any stack, the outcome and its code follow the rules, and no denied call runs its body', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { ctx, tools } = await createHarness()
        let bodyRuns = 0
        const body = async () => {
          bodyRuns++
          if (s.body === 'throw') throw new Error('body failed')
          if (s.body === 'coded') throw new CodedError('INVALID_ARGS', 'coded failure')
          if (s.body === 'invalid') return 42 as never
          return [{ type: 'text' as const, text: 'body' }]
        }
        if (s.tool === 'raw') {
          tools.register({ name: 't', description: 'The tool under test.', parameters: { type: 'object' }, execute: body })
        } else {
          tools.register(defineTool({ name: 't', description: 'The tool under test.', parameters: { n: { type: 'integer', required: true } }, execute: body }))
        }
        // Every argument value a listener, guard, wrapper or approval request was shown.
        const seen: unknown[] = []
        let approvalRequests = 0
        let guardChecks = 0
        if (s.approval !== 'none') {
          ctx.provide('toolApproval', {
            requestApproval: async (request) => {
              approvalRequests++
              seen.push(request.execution.arguments)
              if (s.approval === 'throw') throw new Error('approval failed')
              if (s.approval === 'invalid') return { outcome: 'maybe' } as never
              return { outcome: s.approval } as never
            },
          })
        }
        const results: ToolExecutionResult[] = []
        const plugin = await load(ctx, (pluginCtx) => {
          for (const { behaviour, async } of s.pre) {
            pluginCtx.on('tools/pre-execute', (exec, next) => {
              seen.push(exec.arguments)
              switch (behaviour) {
                case 'next':
                  return later(async, next)
                case 'allow':
                  return later(async, () => ({ kind: 'allow' }))
                case 'deny':
                  return later(async, () => ({ kind: 'deny', reason: 'no' }))
                case 'ask':
                  return later(async, () => ({ kind: 'ask', reason: 'sure?' }))
                case 'malformed':
                  return later(async, () => ({ kind: 'perhaps' }) as never)
                case 'nothing':
                  return later(async, () => undefined as never)
                case 'throw':
                  return later(async, () => {
                    throw new Error('listener failed')
                  })
                case 'override-allow':
                  return next().then(() => ({ kind: 'allow' }))
                case 'override-deny':
                  return next().then(() => ({ kind: 'deny', reason: 'overridden' }))
                case 'double-next':
                  return next().then(() => next())
              }
            })
          }
          for (const behaviour of s.guards) {
            let checks = 0
            pluginCtx.tools.guard((exec) => {
              seen.push(exec.arguments)
              guardChecks++
              checks++
              if (behaviour === 'deny' || (behaviour === 'deny-late' && checks > 1)) return 'guarded'
              if (behaviour === 'throw') throw new Error('guard failed')
              if (behaviour === 'malformed') return 7 as never
              return undefined
            })
          }
          for (const { behaviour, async } of s.wrappers) {
            pluginCtx.on('tools/execute', (exec, next) => {
              seen.push(exec.arguments)
              const result = (text: string): ToolExecutionResult => ({ callId: exec.callId, content: [{ type: 'text', text }], isError: false })
              switch (behaviour) {
                case 'next':
                  return later(async, next)
                case 'short':
                  return later(async, () => result('short'))
                case 'garbage':
                  return later(async, () => 'garbage' as never)
                case 'throw-before':
                  return later(async, () => {
                    throw new Error('wrapper failed')
                  })
                case 'throw-after':
                  return next().then(() => {
                    throw new Error('wrapper failed')
                  })
                case 'replace':
                  return next().then(() => result('replaced'))
              }
            })
          }
          for (const { behaviour, async } of s.post) {
            pluginCtx.on('tools/post-execute', (exec, _result, next) => {
              seen.push(exec.arguments)
              switch (behaviour) {
                case 'next':
                  return later(async, next)
                case 'accept':
                  return later(async, () => ({ kind: 'accept' }))
                case 'accept-content':
                  return later(async, () => ({ kind: 'accept', content: [{ type: 'text', text: 'post content' }] }))
                case 'block':
                  return later(async, () => ({ kind: 'block', feedback: [{ type: 'text', text: 'blocked' }] }))
                case 'malformed':
                  return later(async, () => ({ kind: 'block' }) as never)
                case 'throw':
                  return later(async, () => {
                    throw new Error('post failed')
                  })
              }
            })
          }
          pluginCtx.on('tools/result', (_exec, result) => void results.push(result))
        })

        const want = expected(s)
        const args = s.validArgs ? validArgs : invalidArgs
        const result = await tools.execute(call('t', args, s.hasAgent ? { agent: agent('a') } : {}))
        expect(result.error?.code ?? null).toBe(want.code)
        expect(result.isError).toBe(want.code !== null)
        if (want.text !== undefined) expect(textOf(result)).toBe(want.text)
        expect(bodyRuns).toBe(want.bodyRan ? 1 : 0)
        // Nobody is asked about a call that a guard denies or whose arguments do not validate.
        expect(approvalRequests).toBe(want.asked ? 1 : 0)
        if (result.error?.code === 'GUARD_DENIED' && guardChecks === 1) expect(approvalRequests).toBe(0)
        // No listener, guard, wrapper or approval service sees arguments of a defineTool tool that do not validate.
        if (s.tool === 'defined' && !s.validArgs) expect(seen).toEqual([])
        for (const value of seen) expect(value).toEqual(args)
        expect(results).toEqual([result])
        expect(results[0]).toBe(result)
        expect(isDeepFrozen(result)).toBe(true)
        expect(JSON.parse(JSON.stringify(result))).toEqual(result)

        await plugin.dispose()
        expect(tools.schemas().map((schema) => schema.name)).toEqual(['t'])
        for (const name of ['tools/pre-execute', 'tools/execute', 'tools/post-execute', 'tools/result'] as const) {
          expect(ctx.events._hooks[name]).toBeUndefined()
        }
      }),
      { numRuns: 400 },
    )
  })

  it('for any stack of guards, the first reason or failure decides and later guards do not run', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom<Guard>('pass', 'deny', 'throw', 'malformed'), { maxLength: 6 }), async (guards) => {
        const { tools } = await createHarness()
        let bodyRuns = 0
        tools.register({ name: 't', description: '', parameters: { type: 'object' }, execute: async () => (bodyRuns++, []) })
        const ran: number[] = []
        guards.forEach((behaviour, index) =>
          tools.guard(() => {
            ran.push(index)
            if (behaviour === 'deny') return `guard ${index}`
            if (behaviour === 'throw') throw new Error('x')
            if (behaviour === 'malformed') return null as never
            return undefined
          }),
        )
        const result = await tools.execute(call('t'))
        const first = guards.findIndex((behaviour) => behaviour !== 'pass')
        expect(ran).toEqual(guards.slice(0, first < 0 ? guards.length : first + 1).map((_behaviour, index) => index))
        expect(bodyRuns).toBe(first < 0 ? 1 : 0)
        expect(result.error?.code ?? null).toBe(first < 0 ? null : guards[first] === 'deny' ? 'GUARD_DENIED' : 'INVALID_DECISION')
      }),
      { numRuns: 200 },
    )
  })

  it('for any JSON or non-JSON arguments and results, every result is deep-frozen and JSON-safe', async () => {
    const value = fc.oneof(
      fc.jsonValue(),
      fc.constantFrom(undefined, Number.NaN, -0, () => 1, Symbol('s'), new Date(0), new Map(), 1n),
      fc.dictionary(fc.string(), fc.constantFrom(undefined, Number.POSITIVE_INFINITY, new Set())),
    )
    await fc.assert(
      fc.asyncProperty(value, value, async (args, meta) => {
        const { tools } = await createHarness()
        tools.register({ name: 't', description: '', parameters: { type: 'object' }, execute: async () => ({ content: [{ type: 'text', text: 'x' }], meta }) })
        const result = await tools.execute(call('t', args))
        expect(isDeepFrozen(result)).toBe(true)
        expect(JSON.parse(JSON.stringify(result))).toEqual(result)
      }),
      { numRuns: 300 },
    )
  })
})
