import { DshError, type ToolExecution, type ToolExecutionResult } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import {
  createTestAgent,
  createToolContext,
  formatSessionLog,
  runScriptedSession,
  ScriptedModelError,
  scriptedModel,
  type ModelTurnContext,
  type ScriptedModel,
  type ScriptedToolCall,
  type ToolTestContext,
} from './index.js'
import { text, tool } from './test-kit.js'

/** A raw tool that checks its own arguments, as a raw definition must: `path` has to be a non-empty string. */
function registerReadFile(t: ToolTestContext): void {
  t.tools.register(
    tool('read_file', {
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      async execute(args) {
        const path = (args as { path?: unknown }).path
        if (typeof path !== 'string' || path === '') {
          throw new DshError('INVALID_ARGS', `read_file: "path" must be a non-empty string, got ${JSON.stringify(path)}`)
        }
        return [text(`contents of ${path}`)]
      },
    }),
  )
}

describe('runScriptedSession', () => {
  it('plays an INVALID_ARGS retry: the model reads the error and corrects its call', async () => {
    await using t = await createToolContext()
    registerReadFile(t)
    const seen: ModelTurnContext[] = []
    const session = await runScriptedSession(t.tools, [
      [{ id: 'call_1', name: 'read_file', arguments: { path: 42 } }],
      (context) => {
        seen.push(context)
        const failed = context.previous?.results.find((result) => result.error?.code === 'INVALID_ARGS')
        return failed === undefined ? [] : [{ id: 'call_2', name: 'read_file', arguments: { path: 'notes.md' } }]
      },
      (context) => {
        seen.push(context)
        return []
      },
    ])

    expect(session.stopReason).toBe('done')
    expect(session.steps).toHaveLength(2)
    expect(session.steps[0]?.results[0]).toMatchObject({ isError: true, error: { name: 'DshError', code: 'INVALID_ARGS' } })
    expect(session.steps[1]?.results[0]).toEqual({ callId: 'call_2', content: [text('contents of notes.md')], isError: false })
    expect(formatSessionLog(session.log)).toBe(
      [
        'step 1',
        '  tool/call call_1 read_file {"path":42} (batch 1, serial)',
        '  tool/result call_1 error INVALID_ARGS: read_file: "path" must be a non-empty string, got 42',
        'step 2',
        '  tool/call call_2 read_file {"path":"notes.md"} (batch 1, serial)',
        '  tool/result call_2 ok: contents of notes.md',
      ].join('\n'),
    )
    // Each turn saw the steps before it.
    expect(seen.map((context) => [context.step, context.steps.length, context.log.length, context.previous?.step])).toEqual([
      [2, 1, 2, 1],
      [3, 2, 4, 2],
    ])
  })

  it('takes a model function, asked until it has no more calls', async () => {
    await using t = await createToolContext()
    registerReadFile(t)
    const attempts = ['', 'draft.md', 'never-used.md']
    const model: ScriptedModel = ({ step, previous }) => {
      if (previous !== undefined && !previous.results[0]!.isError) return undefined
      return [{ id: `call_${step}`, name: 'read_file', arguments: { path: attempts[step - 1] } }]
    }
    const session = await runScriptedSession(t.tools, model)
    expect(session.steps.map((step) => step.results[0]?.isError)).toEqual([true, false])
    expect(session.log.filter((event) => event.type === 'tool/call').map((event) => event.callId)).toEqual(['call_1', 'call_2'])
  })

  it('ends at an empty turn; later turns are not played', async () => {
    await using t = await createToolContext()
    t.tools.register(tool('echo'))
    let played = 0
    const session = await runScriptedSession(t.tools, [
      [{ id: 'c1', name: 'echo', arguments: {} }],
      [],
      () => {
        played += 1
        return [{ id: 'c2', name: 'echo', arguments: {} }]
      },
    ])
    expect(session.steps).toHaveLength(1)
    expect(played).toBe(0)
  })

  it('records the same tool/result objects the registry hands to tools/result observers', async () => {
    await using t = await createToolContext()
    t.tools.register(tool('echo', { concurrencySafe: true }))
    const observed: [Readonly<ToolExecution>, ToolExecutionResult][] = []
    t.ctx.on('tools/result', (exec, result) => void observed.push([exec, result]))
    const session = await runScriptedSession(t.tools, [
      [
        { id: 'a', name: 'echo', arguments: { n: 1 } },
        { id: 'b', name: 'echo', arguments: { n: 2 } },
      ],
    ])
    const recorded = session.log.flatMap((event) => (event.type === 'tool/result' ? [event.result] : []))
    expect(recorded).toHaveLength(2)
    for (const result of recorded) expect(observed.some(([, seen]) => seen === result)).toBe(true)
    expect(observed.map(([exec]) => exec.arguments)).toEqual([{ n: 1 }, { n: 2 }])
  })

  it('runs every call for the session agent', async () => {
    await using t = await createToolContext()
    const agent = createTestAgent('alice')
    t.tools.scope(agent).register(tool('whoami', { execute: async (_args, exec) => [text(exec.agent?.id ?? 'nobody')] }))
    let agentSeen: unknown
    const session = await runScriptedSession(
      t.tools,
      [
        (context) => {
          agentSeen = context.agent
          return [{ id: 'c1', name: 'whoami', arguments: {} }]
        },
      ],
      { agent },
    )
    expect(agentSeen).toBe(agent)
    expect(session.steps[0]?.results[0]?.content).toEqual([text('alice')])
    const withoutAgent = await runScriptedSession(t.tools, [[{ id: 'c1', name: 'whoami', arguments: {} }]])
    expect(withoutAgent.steps[0]?.results[0]?.error?.code).toBe('UNKNOWN_TOOL')
  })

  it('rejects a call id used in an earlier step', async () => {
    await using t = await createToolContext()
    t.tools.register(tool('echo'))
    const script = [[{ id: 'c1', name: 'echo', arguments: {} }], [{ id: 'c1', name: 'echo', arguments: {} }]]
    const error: unknown = await runScriptedSession(t.tools, script).catch((caught: unknown) => caught)
    expect(ScriptedModelError.isInstance(error)).toBe(true)
    expect(error).toMatchObject({ step: 2, code: 'INVALID_CALL' })
  })

  it('stops a model that keeps calling tools after maxSteps, with ScriptedModelError', async () => {
    await using t = await createToolContext()
    t.tools.register(tool('echo'))
    let asked = 0
    const forever: ScriptedModel = ({ step }) => {
      asked += 1
      return [{ id: `c${step}`, name: 'echo', arguments: {} }]
    }
    await expect(runScriptedSession(t.tools, forever, { maxSteps: 3 })).rejects.toMatchObject({
      name: 'ScriptedModelError',
      step: 4,
      message: 'scripted model, step 4: the model is still calling tools after maxSteps (3) steps',
    })
    expect(asked).toBe(4)
  })

  it('stops asking the model once the signal fired', async () => {
    await using t = await createToolContext()
    const controller = new AbortController()
    t.tools.register(
      tool('cancel', {
        async execute() {
          controller.abort()
          return [text('cancelled the session')]
        },
      }),
    )
    let asked = 0
    const model: ScriptedModel = ({ step }) => {
      asked += 1
      return [{ id: `c${step}`, name: 'cancel', arguments: {} }]
    }
    const session = await runScriptedSession(t.tools, model, { signal: controller.signal })
    expect(session.stopReason).toBe('aborted')
    expect(asked).toBe(1)
  })

  it('passes on an error thrown by a model turn', async () => {
    await using t = await createToolContext()
    const script = [
      () => {
        throw new Error('the script is wrong')
      },
    ]
    await expect(runScriptedSession(t.tools, script)).rejects.toThrow('the script is wrong')
  })

  it('a scripted model keeps no state, so it drives several sessions alike', async () => {
    await using t = await createToolContext()
    t.tools.register(tool('echo', { execute: async (args) => [text(JSON.stringify(args))] }))
    const model = scriptedModel([
      [{ id: 'c1', name: 'echo', arguments: { n: 1 } }],
      async ({ previous }) => [{ id: 'c2', name: 'echo', arguments: { after: previous?.results[0]?.content } }],
    ])
    const first = await runScriptedSession(t.tools, model)
    const second = await runScriptedSession(t.tools, model)
    expect(second.log).toEqual(first.log)
    expect(first.steps).toHaveLength(2)
  })

  it('hands onEvent every event as it is appended, and freezes what it returns', async () => {
    await using t = await createToolContext()
    t.tools.register(tool('echo'))
    const live: string[] = []
    const session = await runScriptedSession(
      t.tools,
      [[{ id: 'c1', name: 'echo', arguments: {} }], [{ id: 'c2', name: 'echo', arguments: {} }]],
      { onEvent: (event) => void live.push(`${event.step} ${event.type} ${event.callId}`) },
    )
    expect(live).toEqual(['1 tool/call c1', '1 tool/result c1', '2 tool/call c2', '2 tool/result c2'])
    expect(Object.isFrozen(session)).toBe(true)
    expect(Object.isFrozen(session.log)).toBe(true)
    expect(Object.isFrozen(session.steps)).toBe(true)
  })

  it('keeps what the model sent even if the script mutates its call objects later', async () => {
    await using t = await createToolContext()
    t.tools.register(tool('echo'))
    const calls: ScriptedToolCall[] = [{ id: 'c1', name: 'echo', arguments: {} }]
    const session = await runScriptedSession(t.tools, [calls])
    ;(calls[0] as { name: string }).name = 'changed'
    expect(session.steps[0]?.calls[0]?.name).toBe('echo')
  })

  it.each([
    ['a turn that is neither a list nor a function', ['echo'], 'script[0]'],
    ['a script that is not a list', { turns: [] }, 'script'],
  ])('rejects %s with InvalidTestOptionError', async (_label, script, option) => {
    await using t = await createToolContext()
    await expect(runScriptedSession(t.tools, script as never)).rejects.toMatchObject({ name: 'InvalidTestOptionError', option })
  })

  it.each([0, 1.5, -1, Number.NaN])('rejects maxSteps %s', async (maxSteps) => {
    await using t = await createToolContext()
    await expect(runScriptedSession(t.tools, [], { maxSteps })).rejects.toMatchObject({ name: 'InvalidTestOptionError', option: 'maxSteps' })
  })
})
