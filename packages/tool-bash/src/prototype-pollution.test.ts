// Issue 14, item 12 (the bash part): with Object.prototype polluted, nothing a caller left out is read from it.
import { existsSync } from 'node:fs'
import fc from 'fast-check'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BASH_TOOLS_DEFAULTS, resolveBashToolsConfig } from './bash-tools-config.js'
import { createCommandEnvironment } from './command-environment.js'
import { resolveLocalBashConfig } from './local-bash-config.js'
import { resolveLocalBashToolsConfig } from './local-bash-tools.js'
import { useExecutors, useScratch, useTools } from './test-support.js'

const dirs = useScratch('tool-bash-pollution-')
const { scratch } = dirs
const executor = useExecutors(dirs)
const tools = useTools(dirs)

/** Runs `body` with `values` set on Object.prototype (enumerable, as a polluting assignment makes them), then removes them. */
async function polluted<T>(values: Record<string, unknown>, body: () => Promise<T> | T): Promise<T> {
  const prototype = Object.prototype as Record<string, unknown>
  for (const [key, value] of Object.entries(values)) prototype[key] = value
  try {
    return await body()
  } finally {
    for (const key of Object.keys(values)) delete prototype[key]
  }
}

describe('the bash tools read only the arguments a call really has', () => {
  it('bash with {} does not run an inherited command', async () => {
    const loaded = await tools()
    const marker = join(scratch, 'pwned')
    const result = await polluted({ command: `echo pwned > ${marker}` }, () => loaded.call('bash', {}))
    expect(result).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS' } })
    expect(existsSync(marker)).toBe(false)
  })

  it('inherited run_in_background, timeout and workdir change nothing', async () => {
    const loaded = await tools()
    const result = await polluted({ run_in_background: true, timeout: 1, workdir: '/nonexistent' }, () =>
      loaded.call('bash', { command: 'sleep 0.2; pwd' }),
    )
    expect(result.isError).toBe(false)
    expect(loaded.text(result)).toBe(scratch)
    expect(result.meta).toMatchObject({ exitCode: 0, timedOut: false, cwd: scratch })
  })

  it('bash_output and bash_kill with {} do not read an inherited task_id', async () => {
    const loaded = await tools()
    const started = await loaded.call('bash', { command: 'sleep 100', run_in_background: true })
    const taskId = (started.meta as { taskId: string }).taskId
    for (const name of ['bash_output', 'bash_kill']) {
      const result = await polluted({ task_id: taskId }, () => loaded.call(name, {}))
      expect(result.isError, name).toBe(true)
    }
    const killed = await loaded.call('bash_kill', { task_id: taskId })
    expect(killed.isError).toBe(false)
  })
})

describe('the executor reads only the request it was given', () => {
  it('run({}) is INVALID_ARGS, not the inherited command', async () => {
    const { bash } = await executor()
    const marker = join(scratch, 'pwned-run')
    await polluted({ command: `echo pwned > ${marker}` }, async () => {
      await expect(bash.run({} as never)).rejects.toMatchObject({ code: 'INVALID_ARGS', field: 'command' })
    })
    expect(existsSync(marker)).toBe(false)
  })

  it('an inherited timeoutMs, cwd or signal is ignored', async () => {
    const { bash } = await executor()
    const aborted = AbortSignal.abort()
    const result = await polluted({ timeoutMs: 1, cwd: '/nonexistent', signal: aborted }, () =>
      bash.run({ command: 'sleep 0.2; pwd' }),
    )
    expect(result).toMatchObject({ timedOut: false, aborted: false, cwd: scratch, exitCode: 0 })
    expect(result.stdout.head).toBe(`${scratch}\n`)
  })

  it('the spawn takes no inherited option (uid) and the command no inherited variable', async () => {
    const { bash } = await executor()
    const uid = process.getuid?.() ?? 0
    const result = await polluted({ uid: uid === 0 ? 4242 : 0, PWNED: 'yes' }, () =>
      bash.run({ command: 'id -u; echo "${PWNED-unset}"' }),
    )
    expect(result.stdout.head).toBe(`${uid}\nunset\n`)
  })
})

describe('configuration objects are read by own properties', () => {
  it('the executor config: inherited keys are neither used nor reported', async () => {
    const clean = resolveLocalBashConfig({})
    const resolved = await polluted(
      { shell: '/bin/false', killGraceMs: 5, drainTimeoutMs: 1, env: { PWNED: '1' }, allowEnv: ['*'], cwd: '/' },
      () => resolveLocalBashConfig({}),
    )
    expect(resolved).toEqual(clean)
  })

  it('the tools config and the combined config: inherited keys are ignored', async () => {
    const tools = await polluted({ maxBackgroundTasks: 0, notifyOnCompletion: 'yes' }, () => resolveBashToolsConfig({}))
    expect(tools).toEqual(BASH_TOOLS_DEFAULTS)
    const combined = await polluted({ executor: { maxTimeoutMs: -1 }, tools: { maxBackgroundTasks: 0 } }, () =>
      resolveLocalBashToolsConfig({}),
    )
    expect(combined).toEqual({ executor: {}, tools: {} })
  })

  it('createCommandEnvironment takes no inherited env, allowEnv or denyEnv', async () => {
    const source = { PATH: '/usr/bin', OTHER: 'x' }
    const clean = createCommandEnvironment(source, {})
    const environment = await polluted({ env: { PWNED: '1' }, allowEnv: ['OTHER'], denyEnv: ['PATH'] }, () =>
      createCommandEnvironment(source, {}),
    )
    expect({ ...environment }).toEqual({ ...clean })
    expect(environment['PATH']).toBe('/usr/bin')
  })
})

describe('for every pollution (property)', () => {
  const executorKeys = Object.keys(resolveLocalBashConfig({}))
  const toolKeys = Object.keys(BASH_TOOLS_DEFAULTS)
  const anyValue = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 2 }))
  const pollution = (keys: readonly string[]) =>
    fc.dictionary(fc.constantFrom(...keys), anyValue, { minKeys: 1, maxKeys: keys.length })

  it('no set of inherited configuration keys changes a resolved configuration', async () => {
    const cleanExecutor = resolveLocalBashConfig({})
    await fc.assert(
      fc.asyncProperty(pollution([...executorKeys, ...toolKeys, 'executor', 'tools']), async (values) => {
        const [executorConfig, toolsConfig, combined] = await polluted(values, () => [
          resolveLocalBashConfig({}),
          resolveBashToolsConfig({}),
          resolveLocalBashToolsConfig({}),
        ])
        expect(executorConfig).toEqual(cleanExecutor)
        expect(toolsConfig).toEqual(BASH_TOOLS_DEFAULTS)
        expect(combined).toEqual({ executor: {}, tools: {} })
      }),
      { numRuns: 100 },
    )
  })

  it('no set of inherited bash arguments is ever used by a call with only a command', async () => {
    const loaded = await tools()
    const marker = join(scratch, 'pwned-property')
    await fc.assert(
      fc.asyncProperty(pollution(['command', 'description', 'timeout', 'workdir', 'run_in_background']), async (values) => {
        // An inherited command, if it ran, would leave the marker.
        if ('command' in values) values['command'] = `touch ${marker}`
        const result = await polluted(values, () => loaded.call('bash', { command: 'echo ok' }))
        expect(existsSync(marker)).toBe(false)
        if (result.isError) {
          // The argument validator (tools-schema) may refuse a call whose inherited value has the wrong type; the
          // tool itself never reads one. Either way nothing inherited runs.
          expect(result.error).toMatchObject({ code: 'INVALID_ARGS' })
          return
        }
        expect(loaded.text(result)).toBe('ok')
        expect(result.meta).toMatchObject({ exitCode: 0, timedOut: false, cwd: scratch })
        expect(result.meta).not.toHaveProperty('taskId')
      }),
      { numRuns: 15 },
    )
  })
})
