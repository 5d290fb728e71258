import { findUnbrandedErrorClasses } from '@dsh/tools-core'
import { contentText, createToolContext, expectCleanUnload, formatSessionLog, runScriptedSession } from '@dsh/tools-testing'
import { describe, expect, it } from 'vitest'
import { codeModePlugin } from './index.js'

describe('code_mode', () => {
  it('runs through the registry and lets the model correct invalid arguments', async () => {
    await using t = await createToolContext({ plugins: [codeModePlugin] })
    const session = await runScriptedSession(t.tools, [
      [{ id: 'call_1', name: 'code_mode', arguments: { text: 'hi', times: 'two' } }],
      ({ previous }) =>
        previous?.results[0]?.error?.code === 'INVALID_ARGS'
          ? [{ id: 'call_2', name: 'code_mode', arguments: { text: 'hi', times: 2 } }]
          : [],
    ])
    expect(formatSessionLog(session.log)).toContain('tool/result call_1 error INVALID_ARGS')
    expect(session.steps[0]?.results[0]?.error?.code).toBe('INVALID_ARGS')
    expect(contentText(session.steps[1]?.results[0]?.content ?? [])).toBe('hi\nhi')
  })

  it('shows the model an object schema', async () => {
    await using t = await createToolContext({ plugins: [codeModePlugin] })
    expect(t.tools.schemas()).toEqual([
      expect.objectContaining({ name: 'code_mode', parameters: expect.objectContaining({ type: 'object', required: ['text'] }) }),
    ])
  })

  it('reports an aborted call as an error', async () => {
    await using t = await createToolContext({ plugins: [codeModePlugin] })
    const controller = new AbortController()
    controller.abort()
    const result = await t.tools.execute({ callId: 'c', name: 'code_mode', arguments: { text: 'x' }, signal: controller.signal })
    expect(result.isError).toBe(true)
  })

  it('unloads cleanly', async () => {
    const report = await expectCleanUnload(codeModePlugin)
    expect(report.footprint.tools).toEqual(['code_mode'])
  })

  it('exports only branded error classes', async () => {
    expect(findUnbrandedErrorClasses(await import('./index.js'))).toEqual([])
  })
})
