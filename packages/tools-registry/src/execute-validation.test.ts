// Stage 3: a defineTool tool's arguments are validated right after resolution, through the definition's
// `validateArguments` hook, before any tools/pre-execute listener, guard or person sees the call.
import type { ToolApprovalRequest, ToolArgumentsCheck } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import { defineTool, InvalidToolDefinitionError, ToolArgsError } from './index.js'
import { agent, call, createHarness, raw, textOf, tool } from './test-kit.js'

const remove = defineTool({
  name: 'remove',
  description: 'Removes files.',
  parameters: { paths: { type: 'array', required: true, items: { type: 'string' } } },
  execute: (args) => `removed ${args.paths.length}`,
})

/** A harness with `remove`, an asking pre-execute listener, a guard and an approval service, all recorded. */
async function watchedHarness() {
  const harness = await createHarness()
  const seen: string[] = []
  const requests: ToolApprovalRequest[] = []
  harness.tools.register(remove)
  harness.ctx.provide('toolApproval', {
    requestApproval: async (request: ToolApprovalRequest) => (requests.push(request), { outcome: 'allowed-once' as const }),
  })
  harness.ctx.on('tools/pre-execute', () => (seen.push('pre-execute'), { kind: 'ask', reason: 'it deletes files' }))
  harness.tools.guard(() => void seen.push('guard'))
  harness.ctx.on('tools/execute', (_exec, next) => (seen.push('execute'), next()))
  harness.ctx.on('tools/post-execute', (_exec, _result, next) => (seen.push('post-execute'), next()))
  return { ...harness, seen, requests }
}

describe('arguments of a defineTool tool are validated before any policy', () => {
  it('regression: a call whose arguments do not validate is INVALID_ARGS before any listener, guard or person sees it', async () => {
    const { tools, seen, requests } = await watchedHarness()
    const result = await tools.execute(call('remove', { paths: 'everything' }, { agent: agent('alice') }))
    expect(result.error).toEqual({ name: 'ToolArgsError', code: 'INVALID_ARGS' })
    expect(seen).toEqual([])
    expect(requests).toEqual([])
  })

  it('the model reads the same ToolArgsError text invoke() throws (every violation with its path)', async () => {
    const { tools } = await createHarness()
    tools.register(remove)
    const args = { paths: [1, 'b', 2] }
    const result = await tools.execute(call('remove', args))
    const thrown = await remove.invoke(args as never, undefined as never).catch((error: unknown) => error)
    expect(ToolArgsError.isInstance(thrown)).toBe(true)
    expect(textOf(result)).toBe((thrown as ToolArgsError).message)
    expect(textOf(result)).toContain('paths[0]')
    expect(textOf(result)).toContain('paths[2]')
  })

  it('a call whose arguments validate goes through every stage in order', async () => {
    const { tools, seen, requests } = await watchedHarness()
    const result = await tools.execute(call('remove', { paths: ['a'] }, { agent: agent('alice') }))
    expect(textOf(result)).toBe('removed 1')
    expect(seen).toEqual(['pre-execute', 'guard', 'guard', 'execute', 'post-execute'])
    expect(requests).toHaveLength(1)
  })

  it('an unknown tool is still UNKNOWN_TOOL before validation (nothing to validate against)', async () => {
    const { tools, seen } = await watchedHarness()
    const result = await tools.execute(call('rmeove', { paths: 'x' }))
    expect(result.error?.code).toBe('UNKNOWN_TOOL')
    expect(seen).toEqual([])
  })

  it('a raw JSON-Schema tool is not validated by the registry: listeners see the call and its body checks its input', async () => {
    const { ctx, tools } = await createHarness()
    const rawTool = tool('legacy', { parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } })
    tools.register(rawTool)
    const seen: unknown[] = []
    ctx.on('tools/pre-execute', (exec, next) => (seen.push(exec.arguments), next()))
    const result = await tools.execute(call('legacy', { n: 'not a number' }))
    expect(result.isError).toBe(false)
    expect(seen).toEqual([{ n: 'not a number' }])
    expect(rawTool.calls).toEqual([{ n: 'not a number' }])
  })

  it('a raw definition may carry its own validateArguments hook, and the registry honours it', async () => {
    const { ctx, tools } = await createHarness()
    const checked: unknown[] = []
    const rawTool = tool('strict', {
      validateArguments: (args: unknown): ToolArgumentsCheck => {
        checked.push(args)
        return typeof args === 'object' && args !== null && 'n' in args ? { ok: true } : { ok: false, message: 'n is required.' }
      },
    })
    tools.register(rawTool)
    let listened = 0
    ctx.on('tools/pre-execute', (_exec, next) => (listened++, next()))
    const rejected = await tools.execute(call('strict', {}))
    expect(rejected.error?.code).toBe('INVALID_ARGS')
    expect(textOf(rejected)).toBe('n is required.')
    expect(listened).toBe(0)
    expect(rawTool.calls).toEqual([])
    await tools.execute(call('strict', { n: 1 }))
    expect(rawTool.calls).toEqual([{ n: 1 }])
    expect(listened).toBe(1)
    // The hook gets the frozen snapshot the body gets, not the caller's object.
    expect(Object.isFrozen(checked[1])).toBe(true)
  })

  it('a rejection without a usable message still says what to do', async () => {
    const { tools } = await createHarness()
    tools.register(tool('vague', { validateArguments: () => ({ ok: false, message: '  ' }) }))
    const result = await tools.execute(call('vague'))
    expect(result.error?.code).toBe('INVALID_ARGS')
    expect(textOf(result)).toBe(`The arguments of the call to "vague" do not match the tool's parameters; fix them and call "vague" again.`)
  })

  it.each([
    ['throws', () => { throw new Error('validator exploded') }, 'it threw Error: validator exploded'],
    ['returns nothing', () => undefined, 'it returned undefined, not { ok: true } or { ok: false, message }'],
    ['returns a truthy non-answer', () => ({ ok: 'yes' }), 'it returned an object, not { ok: true } or { ok: false, message }'],
    ['is async', async () => ({ ok: true }), 'it returned a Promise, not { ok: true } or { ok: false, message }'],
  ])('a validation hook that %s fails closed: TOOL_FAILED, the call does not run and nobody sees it', async (_what, hook, why) => {
    const { ctx, tools, warnings } = await createHarness()
    const broken = tool('broken', { validateArguments: hook as never })
    tools.register(broken)
    let listened = 0
    ctx.on('tools/pre-execute', (_exec, next) => (listened++, next()))
    const result = await tools.execute(call('broken'))
    expect(result.error).toEqual({ name: 'ToolFailedError', code: 'TOOL_FAILED' })
    expect(textOf(result)).toBe(
      `The call to "broken" was not run: the tool's argument check failed (${why}). This is a fault in the tool, not in your arguments; calling it again is unlikely to help.`,
    )
    expect(broken.calls).toEqual([])
    expect(listened).toBe(0)
    expect(warnings.length).toBeGreaterThan(0)
  })

  it('registration rejects a validateArguments that is not a function', async () => {
    const { tools } = await createHarness()
    expect(() => tools.register(raw({ ...tool('bad'), validateArguments: 'yes' }))).toThrow(InvalidToolDefinitionError)
    expect(() => tools.register(raw({ ...tool('bad'), validateArguments: 'yes' }))).toThrow(
      'The validateArguments of tool "bad" must be a function, got the string "yes"',
    )
  })

  it('the hook is the one registered: replacing it on a mutable definition later changes nothing', async () => {
    const { tools } = await createHarness()
    const definition = tool('later', { validateArguments: () => ({ ok: false, message: 'never' }) })
    tools.register(definition)
    definition.validateArguments = () => ({ ok: true })
    expect((await tools.execute(call('later'))).error?.code).toBe('INVALID_ARGS')
  })
})
