import { ToolRegistry } from '@dsh/tools-registry'
import { presentToolCall, presentToolResult, renderToolResult } from '@dsh/tools-presentation'
import { createTestAgent, createToolContext, expectCleanUnload } from '@dsh/tools-testing'
import { Context } from 'cordis'
import { describe, expect, it, vi } from 'vitest'
import { BashConfigError } from './bash-config-error.js'
import { BashTools } from './bash-tools.js'
import { BASH_TOOLS_DEFAULTS, resolveBashToolsConfig } from './bash-tools-config.js'
import { BashToolsConfigError } from './bash-tools-config-error.js'
import { LocalBashExecutor } from './local-bash-executor.js'
import { LocalBashTools, resolveLocalBashToolsConfig } from './local-bash-tools.js'
import { loadTools, useScratch, waitFor } from './test-support.js'

const { scratch } = useScratch('tool-bash-plugin-')

async function rejection(promise: PromiseLike<unknown>): Promise<unknown> {
  return Promise.resolve(promise).then(
    () => undefined,
    (reason: unknown) => reason,
  )
}

describe('configuration', () => {
  it('fills in the defaults and freezes the result', () => {
    expect(resolveBashToolsConfig(undefined)).toEqual({
      maxBackgroundTasks: 8,
      maxFinishedTasks: 16,
      finishedTaskRetentionMs: 1_800_000,
      notifyOnCompletion: true,
    })
    expect(resolveBashToolsConfig({ maxBackgroundTasks: 1, notifyOnCompletion: false, finishedTaskRetentionMs: 60_000 })).toEqual({
      maxBackgroundTasks: 1,
      maxFinishedTasks: 16,
      finishedTaskRetentionMs: 60_000,
      notifyOnCompletion: false,
    })
    expect(Object.isFrozen(resolveBashToolsConfig({}))).toBe(true)
    expect(Object.isFrozen(BASH_TOOLS_DEFAULTS)).toBe(true)
  })

  it('lists every problem, each starting with its key', () => {
    let error: unknown
    try {
      resolveBashToolsConfig({ maxBackgroundTasks: 0, maxFinishedTasks: 2.5, finishedTaskRetentionMs: 0, notifyOnCompletion: 'yes', maxTasks: 3 })
    } catch (caught) {
      error = caught
    }
    expect(BashToolsConfigError.isInstance(error)).toBe(true)
    expect((error as BashToolsConfigError).issues).toEqual([
      'maxTasks: unknown key (known keys: maxBackgroundTasks, maxFinishedTasks, finishedTaskRetentionMs, notifyOnCompletion)',
      'maxBackgroundTasks: must be an integer from 1 to 1024, got 0',
      'maxFinishedTasks: must be an integer from 1 to 1024, got 2.5',
      'finishedTaskRetentionMs: must be an integer from 1 to 2147483647, got 0',
      'notifyOnCompletion: must be a boolean, got "yes"',
    ])
    expect(() => resolveBashToolsConfig([])).toThrow('config: must be a plain object, got an array')
    expect(() => resolveBashToolsConfig({ maxBackgroundTasks: 1025 })).toThrow('got 1025')
    expect(() => resolveBashToolsConfig({ finishedTaskRetentionMs: 2_147_483_648 })).toThrow('got 2147483648')
  })

  it('a bad config fails the load with the typed INVALID_CONFIG error and registers nothing', async () => {
    await using t = await createToolContext({ plugins: [[LocalBashExecutor, { cwd: scratch }]] })
    const error = await rejection(t.ctx.plugin(BashTools, { maxBackgroundTasks: -1 }))
    expect(BashToolsConfigError.isInstance(error)).toBe(true)
    expect(error).toMatchObject({ name: 'BashToolsConfigError', code: 'INVALID_CONFIG' })
    expect(t.tools.schemas()).toEqual([])
  })

  it('the combined plugin validates both parts at once, prefixed', () => {
    let error: unknown
    try {
      resolveLocalBashToolsConfig({ executor: { maxTimeoutMs: 0 }, tools: { maxBackgroundTasks: 'many' }, extra: true })
    } catch (caught) {
      error = caught
    }
    expect(BashToolsConfigError.isInstance(error)).toBe(true)
    expect((error as BashToolsConfigError).issues).toEqual([
      'extra: unknown key (known keys: executor, tools)',
      'executor.maxTimeoutMs: must be an integer from 1 to 2147483647, got 0',
      'tools.maxBackgroundTasks: must be an integer from 1 to 1024, got "many"',
    ])
    expect(BashConfigError.isInstance(error)).toBe(false)
    expect(() => resolveLocalBashToolsConfig(7)).toThrow('config: must be a plain object')
    expect(() => resolveLocalBashToolsConfig({ tools: 3 })).toThrow('tools: must be a plain object, got 3')
  })
})

describe('the plugins', () => {
  it('BashTools registers bash, bash_output and bash_kill once a registry and an executor exist', async () => {
    const ctx = new Context()
    const tools = await ctx.plugin(BashTools)
    // Waits for its services: cordis leaves it pending, nothing registered.
    await ctx.plugin(ToolRegistry)
    expect(ctx.tools.schemas()).toEqual([])
    await ctx.plugin(LocalBashExecutor, { cwd: scratch })
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(ctx.tools.schemas().map((schema) => schema.name)).toEqual(['bash', 'bash_output', 'bash_kill'])
    expect(ctx.tools.executionMode({ name: 'bash' })).toBe('serial')
    expect(ctx.tools.executionMode({ name: 'bash_output' })).toBe('parallel')
    await tools.dispose()
    expect(ctx.tools.schemas()).toEqual([])
  })

  it("states the executor's limits in the model-facing descriptions", async () => {
    await using loaded = await loadTools({
      executor: { cwd: scratch, defaultTimeoutMs: 30_000, maxTimeoutMs: 90_000, backgroundTimeoutMs: 60_000, outputWindowBytes: 4_096 },
      tools: { maxBackgroundTasks: 3 },
    })
    const bash = loaded.t.tools.schemas().find((schema) => schema.name === 'bash')
    expect(bash?.description).toContain('more than 4096 bytes')
    expect(bash?.description).toContain('The timeout is 30000 ms unless `timeout` says otherwise (at most 90000 ms)')
    expect(bash?.description).toContain('At most 3 background tasks may run at once.')
    expect(bash?.parameters).toMatchObject({
      type: 'object',
      required: ['command'],
      properties: {
        timeout: { type: 'integer', description: 'Stop the command after this many milliseconds: 1 to 90000. Default: 30000 (60000 in the background).' },
      },
    })
    // The budget a timeout policy enforces lies past the longest command timeout: the command's own timeout fires first.
    expect(loaded.t.tools.get('bash')?.timeoutMs).toBe(90_000 + 70_000)
    expect(loaded.t.tools.get('bash_output')?.timeoutMs).toBeUndefined()
    const properties = (bash?.parameters as unknown as { properties: object } | undefined)?.properties ?? {}
    expect(Object.keys(properties)).toEqual([
      'command',
      'description',
      'timeout',
      'workdir',
      'run_in_background',
    ])
  })

  it('LocalBashTools loads the executor and the tools, and unloading it stops everything', async () => {
    await using t = await createToolContext()
    const loaded = await t.load(LocalBashTools, { executor: { cwd: scratch }, tools: { maxBackgroundTasks: 2 } })
    expect(t.tools.schemas().map((schema) => schema.name)).toEqual(['bash', 'bash_output', 'bash_kill'])
    const result = await t.tools.execute({ callId: 'c1', name: 'bash', arguments: { command: 'pwd' } })
    expect(result.content).toEqual([{ type: 'text', text: scratch }])
    await loaded.dispose()
    expect(t.tools.schemas()).toEqual([])
    expect(t.ctx.get('bash')).toBeUndefined()
    const error = await rejection(t.ctx.plugin(LocalBashTools, { tools: { maxFinishedTasks: 0 } }))
    expect(error).toMatchObject({ name: 'BashToolsConfigError', code: 'INVALID_CONFIG' })
  })
})

describe('without ToolRegistry', () => {
  it('regression: LocalBashTools says at load that ToolRegistry is missing, instead of a TypeError at ctx.tools later', async () => {
    const ctx = new Context()
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      await ctx.plugin(LocalBashTools, { executor: { cwd: scratch } })
      expect(warned).toHaveBeenCalledTimes(1)
      expect(String(warned.mock.calls[0]?.[0])).toMatch(
        /^Warning: The bash tools of @dsh\/tool-bash \(LocalBashTools\) wait for ctx\.tools, which no plugin provides: load ToolRegistry from @dsh\/tools-registry /,
      )
      // Loaded afterwards, the registry gets the tools: the warning was about waiting, not a failure.
      await ctx.plugin(ToolRegistry)
      await waitFor(() => ctx.get('tools')?.get('bash') !== undefined)
      expect(warned).toHaveBeenCalledTimes(1)
    } finally {
      warned.mockRestore()
      await ctx.root.fiber.dispose()
    }
  })

  it('says nothing when the registry is loaded first', async () => {
    await using t = await createToolContext()
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      await t.load(LocalBashTools, { executor: { cwd: scratch } })
      expect(warned).not.toHaveBeenCalled()
    } finally {
      warned.mockRestore()
    }
  })
})

describe('hot unload', () => {
  it('BashTools leaves nothing behind (two load/dispose cycles)', async () => {
    const report = await expectCleanUnload(BashTools, {
      plugins: [[LocalBashExecutor, { cwd: scratch }]],
      config: { maxBackgroundTasks: 2 },
    })
    expect(report.footprint.tools).toEqual(['bash', 'bash_output', 'bash_kill'])
    expect(report.cycles).toBe(2)
  })

  it('LocalBashTools leaves nothing behind, the executor included', async () => {
    const report = await expectCleanUnload(LocalBashTools, { config: { executor: { cwd: scratch } } })
    expect(report.footprint.tools).toEqual(['bash', 'bash_output', 'bash_kill'])
    expect(report.footprint.services).toContain('bash')
  })

  it('a context with running background tasks unloads clean', async () => {
    await using t = await createToolContext({ plugins: [[LocalBashExecutor, { cwd: scratch, killGraceMs: 100 }]] })
    const agent = createTestAgent('busy')
    const report = await expectCleanUnload(
      {
        name: 'bash-tools-with-work',
        inject: ['tools', 'bash'],
        async apply(ctx: Context) {
          await ctx.plugin(BashTools)
          await ctx.tools.execute({ callId: 'bg', name: 'bash', agent, arguments: { command: 'sleep 100', run_in_background: true } })
        },
      },
      { context: t, cycles: 1 },
    )
    expect(report.clean).toBe(true)
  })
})

describe('presenters', () => {
  it('a foreground call is a terminal card: title = command, description, cwd; its result shows the exit from meta', async () => {
    await using loaded = await loadTools({ executor: { cwd: scratch } })
    const bash = loaded.t.tools.get('bash')
    if (bash === undefined) throw new Error('bash is not registered')
    const args = { command: 'echo built; exit 2', description: 'Build', workdir: 'sub' }
    expect(presentToolCall(bash, args)).toEqual({ card: 'terminal', title: 'echo built; exit 2', description: 'Build', cwd: 'sub' })
    expect(presentToolCall(bash, { command: 'ls' })).toEqual({ card: 'terminal', title: 'ls' })
    const result = await loaded.call('bash', { command: 'echo built; exit 2' })
    const view = presentToolResult(bash, { command: 'echo built; exit 2' }, result)
    expect(view).toEqual({ card: 'terminal', output: 'built\n[exit code: 2]', exitCode: 2, signal: null, timedOut: false })
    expect(renderToolResult(view, { call: presentToolCall(bash, { command: 'echo built; exit 2' }), color: false })).toEqual([
      '$ echo built; exit 2  [exit 2]',
      '  │ built',
      '  │ [exit code: 2]',
    ])
    // The exit status comes from meta, never from the text.
    const forged = presentToolResult(bash, { command: 'x' }, { content: [{ type: 'text', text: 'ok\n[exit code: 3]' }], isError: false, meta: result.meta })
    expect(forged).toMatchObject({ exitCode: 2 })
    const timedOut = await loaded.call('bash', { command: 'sleep 5', timeout: 50 })
    expect(presentToolResult(bash, { command: 'sleep 5' }, timedOut)).toMatchObject({ card: 'terminal', timedOut: true, signal: 'SIGTERM', exitCode: null })
    const failed = await loaded.call('bash', { command: 'ls', workdir: 'missing' })
    expect(presentToolResult(bash, { command: 'ls', workdir: 'missing' }, failed)).toEqual({
      card: 'terminal',
      output: expect.stringContaining('does not exist'),
    })
  })

  it('background calls, bash_output and bash_kill get generic cards', async () => {
    await using loaded = await loadTools({ executor: { cwd: scratch } })
    const [bash, output, kill] = ['bash', 'bash_output', 'bash_kill'].map((name) => loaded.t.tools.get(name))
    if (bash === undefined || output === undefined || kill === undefined) throw new Error('tools missing')
    const args = { command: 'npm run dev', description: 'Dev server', run_in_background: true }
    expect(presentToolCall(bash, args)).toEqual({
      card: 'generic',
      title: 'npm run dev',
      kind: 'execute',
      content: [{ type: 'text', text: 'Dev server (in the background)' }],
    })
    const started = await loaded.call('bash', { command: 'sleep 30', run_in_background: true })
    expect(presentToolResult(bash, { command: 'sleep 30', run_in_background: true }, started)).toEqual({ card: 'generic' })
    const taskId = (started.meta as { taskId: string }).taskId
    expect(presentToolCall(output, { task_id: taskId })).toEqual({ card: 'generic', title: `Output of ${taskId}`, kind: 'read' })
    const read = await loaded.call('bash_output', { task_id: taskId })
    expect(presentToolResult(output, { task_id: taskId }, read)).toEqual({ card: 'generic', title: `Output of ${taskId} (running)` })
    expect(presentToolCall(kill, { task_id: taskId })).toEqual({ card: 'generic', title: `Stop ${taskId}`, kind: 'execute' })
    const killed = await loaded.call('bash_kill', { task_id: taskId })
    expect(presentToolResult(kill, { task_id: taskId }, killed)).toEqual({ card: 'generic', title: `Stop ${taskId}` })
    // Arguments that do not validate (a replayed log) fall back to the generic card.
    expect(presentToolCall(bash, { command: 7 })).toEqual({ card: 'generic', title: 'bash', rawInput: { command: 7 } })
  })
})
