import { createToolContext, expectCleanUnload, formatSessionLog, runScriptedSession } from '@dsh/tools-testing'
import { describe, expect, it } from 'vitest'
import * as echoPlugin from './echo-tool.js'

describe('echo', () => {
  it('shows the model the JSON Schema of its DSL parameters, and nothing else', async () => {
    await using t = await createToolContext({ plugins: [echoPlugin] })
    expect(t.tools.schemas()).toEqual([
      {
        name: 'echo',
        description: 'Say a text back, once or a few times, optionally in upper case.',
        parameters: {
          type: 'object',
          properties: {
            text: { type: 'string', description: 'The text to say back' },
            times: { type: 'integer', enum: [1, 2, 3], description: 'How many times to say it', default: 1 },
            shout: { type: 'boolean', description: 'Say it in upper case' },
          },
          required: ['text'],
        },
      },
    ])
  })

  it('says the text back as many times as asked, in upper case when asked', async () => {
    await using t = await createToolContext({ plugins: [echoPlugin] })
    const once = await t.tools.execute({ callId: 'c1', name: 'echo', arguments: { text: 'hi' } })
    expect(once).toEqual({ callId: 'c1', content: [{ type: 'text', text: 'hi' }], isError: false })
    const loud = await t.tools.execute({ callId: 'c2', name: 'echo', arguments: { text: 'hi', times: 2, shout: true } })
    expect(loud.content).toEqual([{ type: 'text', text: 'HI\nHI' }])
  })

  it('rejects wrong arguments before the body runs, listing every problem for the model', async () => {
    await using t = await createToolContext({ plugins: [echoPlugin] })
    const result = await t.tools.execute({ callId: 'c1', name: 'echo', arguments: { times: 4, shout: 1 } })
    expect(result.isError).toBe(true)
    expect(result.error).toEqual({ name: 'ToolArgsError', code: 'INVALID_ARGS' })
    expect(result.content[0]).toEqual({
      type: 'text',
      text: [
        'Invalid arguments for tool "echo" (3 problems):',
        '- times: expected one of 1, 2, 3, got 4',
        '- shout: expected a boolean, got the number 1',
        '- text: is required but missing',
        'Fix the arguments to match the parameter schema and call "echo" again.',
      ].join('\n'),
    })
  })

  it('runs in parallel with other concurrency-safe calls of a step, results in model order', async () => {
    await using t = await createToolContext({ plugins: [echoPlugin] })
    const session = await runScriptedSession(t.tools, [
      [
        { id: 'a', name: 'echo', arguments: { text: 'one' } },
        { id: 'b', name: 'echo', arguments: { text: 'two', shout: true } },
      ],
      ({ previous }) => (previous?.results.every((result) => !result.isError) === true ? [{ id: 'c', name: 'echo', arguments: { text: 'done' } }] : []),
    ])
    expect(session.steps[0]?.batches).toEqual([{ mode: 'parallel', callIds: ['a', 'b'] }])
    expect(formatSessionLog(session.log)).toBe(
      [
        'step 1',
        '  tool/call a echo {"text":"one"} (batch 1, parallel)',
        '  tool/call b echo {"text":"two","shout":true} (batch 1, parallel)',
        '  tool/result a ok: one',
        '  tool/result b ok: TWO',
        'step 2',
        '  tool/call c echo {"text":"done"} (batch 1, parallel)',
        '  tool/result c ok: done',
      ].join('\n'),
    )
  })

  it('presents a call by its text, and falls back to the generic card for arguments that do not validate', () => {
    expect(echoPlugin.echoTool.presentCall?.({ text: 'hi' })).toEqual({ card: 'generic', title: 'Echo "hi"', kind: 'other' })
    expect(echoPlugin.echoTool.presentCall?.({ text: 7 })).toBeUndefined()
  })

  it('leaves nothing behind when the plugin is unloaded', async () => {
    const report = await expectCleanUnload(echoPlugin)
    expect(report.footprint.tools).toEqual(['echo'])
  })
})
