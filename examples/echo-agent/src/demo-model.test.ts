import { createToolContext, runScriptedSession } from '@dsh/tools-testing'
import { describe, expect, it } from 'vitest'
import { createDemoModel, type DemoStep } from './demo-model.js'
import * as echoPlugin from './echo-tool.js'

describe('createDemoModel', () => {
  it('numbers the calls, tells what the model says, and finds nothing to report when the script is followed', async () => {
    await using t = await createToolContext({ plugins: [echoPlugin] })
    const said: string[] = []
    const steps: DemoStep[] = [
      {
        say: 'two at once',
        calls: [
          { name: 'echo', arguments: { text: 'a' }, expect: 'ok' },
          { name: 'echo', arguments: {}, expect: 'INVALID_ARGS' },
        ],
      },
      {
        say: 'react',
        calls: ({ previous }) => (previous?.results[1]?.error?.code === 'INVALID_ARGS' ? [{ name: 'nope', arguments: {}, expect: 'UNKNOWN_TOOL' }] : []),
      },
    ]
    const { model, check } = createDemoModel(steps, (step, say) => said.push(`${step}: ${say}`))
    const session = await runScriptedSession(t.tools, model)
    expect(session.steps.map((step) => step.calls.map((call) => call.id))).toEqual([['call_1a', 'call_1b'], ['call_2a']])
    expect(said).toEqual(['1: two at once', '2: react'])
    expect(check(session)).toEqual([])
  })

  it('reports calls that ended otherwise, and a session that stopped before the script ended', async () => {
    await using t = await createToolContext({ plugins: [echoPlugin] })
    const steps: DemoStep[] = [
      { say: 'wrong expectation', calls: [{ name: 'echo', arguments: { text: 'a' }, expect: 'INVALID_ARGS' }] },
      { say: 'never played', calls: ({ previous }) => (previous?.results[0]?.isError === true ? [{ name: 'echo', arguments: { text: 'b' }, expect: 'ok' }] : []) },
    ]
    const said: number[] = []
    const { model, check } = createDemoModel(steps, (step) => said.push(step))
    const session = await runScriptedSession(t.tools, model)
    expect(said).toEqual([1])
    expect(check(session)).toEqual([
      'call_1a (echo) ended as ok, the script expects INVALID_ARGS',
      'the model stopped after step 1 of 2: a turn did not see what it reacts to',
    ])
  })
})
