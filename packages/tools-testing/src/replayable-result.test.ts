import type { ToolExecutionResult } from '@dsh/tools-core'
import { defineTool } from '@dsh/tools-registry'
import { describe, expect, it } from 'vitest'
import { createToolContext } from './create-tool-context.js'
import { formatSessionLog } from './format-session-log.js'
import { replayableResult } from './replayable-result.js'
import { runScriptedSession } from './run-scripted-session.js'

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a key up.',
  parameters: { key: { type: 'string', required: true } },
  output: {
    schema: { type: 'object', additionalProperties: false, properties: { key: { type: 'string', required: true }, token: { type: 'string', required: true } } },
    render: (_args, value) => `found ${value.key}`,
    presentationMeta: (_args, value) => ({ key: value.key }),
  },
  execute: (args) => ({ key: args.key, token: 'canonical-only-value' }),
})

describe('replayableResult', () => {
  it('drops structuredContent and keeps the projections and the outcome, frozen', () => {
    const result: ToolExecutionResult = Object.freeze({ callId: 'c', content: [], isError: false, meta: { a: 1 }, structuredContent: { b: 2 } })
    const replayable = replayableResult(result)
    expect(replayable).toEqual({ callId: 'c', content: [], isError: false, meta: { a: 1 } })
    expect(Object.hasOwn(replayable, 'structuredContent')).toBe(false)
    expect(Object.isFrozen(replayable)).toBe(true)
  })

  it('returns a result without structuredContent as it is', () => {
    const result: ToolExecutionResult = { callId: 'c', content: [], isError: true, error: { name: 'ToolFailedError', code: 'TOOL_FAILED' } }
    expect(replayableResult(result)).toBe(result)
  })

  it('regression: the session log does not persist structuredContent; the step results keep it', async () => {
    await using t = await createToolContext()
    t.tools.register(lookup)
    const session = await runScriptedSession(t.tools, [[{ id: 'c1', name: 'lookup', arguments: { key: 'k' } }]])
    const logged = session.log.find((event) => event.type === 'tool/result')
    expect(logged?.type === 'tool/result' ? logged.result : undefined).toEqual({ callId: 'c1', content: [{ type: 'text', text: 'found k' }], isError: false, meta: { key: 'k' } })
    expect(JSON.stringify(session.log)).not.toContain('canonical-only-value')
    expect(formatSessionLog(session.log)).not.toContain('canonical-only-value')
    expect(session.steps[0]?.results[0]?.structuredContent).toEqual({ key: 'k', token: 'canonical-only-value' })
  })
})
