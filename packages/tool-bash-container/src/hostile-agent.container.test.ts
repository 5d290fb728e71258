// A command runs as the agent's user, so it can open the agent's pipes through /proc/<agent>/fd and write into the
// stream the host reads (or the one the agent reads). The host treats that stream as untrusted input: whatever is
// written there, the host process stays up and bounded, a line that is not a message ends the session as a dead
// container would (every call with a note, later calls BASH_SPAWN_FAILED, the container gone), and a well-formed
// message for nothing the host knows is dropped.
import { mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterAll, expect, it } from 'vitest'
import { ContainerBashExecutor } from './container-bash-executor.js'
import type { ContainerBashConfig } from './container-config.js'
import { SESSION_LABEL } from './container-session.js'
import { describeOnEngines, type TestEngine } from './test-support.js'

const base = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-ct-hostile-')))
afterAll(() => rmSync(base, { recursive: true, force: true }))
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

async function session(on: TestEngine, config: ContainerBashConfig = {}): Promise<{ executor: ContainerBashExecutor; agent: number; dispose: () => Promise<void>; gone: () => Promise<boolean> }> {
  const ctx = new Context()
  const fiber = await ctx.plugin(ContainerBashExecutor, { ...on.options(), cwd: base, ...config })
  const executor = ctx.bash as ContainerBashExecutor
  const engine = on.client()
  const labels = (await engine.call<{ Config: { Labels: Record<string, string> } }>('GET', `/containers/${executor.containerId}/json`)).Config.Labels
  const filters = encodeURIComponent(JSON.stringify({ label: [`${SESSION_LABEL}=${labels[SESSION_LABEL]}`] }))
  return {
    executor,
    agent: executor.facts?.agentPid ?? 0,
    dispose: () => fiber.dispose(),
    gone: async () => {
      for (let attempt = 0; attempt < 60; attempt += 1) {
        if ((await engine.call<unknown[]>('GET', `/containers/json?all=1&filters=${filters}`)).length === 0) return true
        await sleep(50)
      }
      return false
    },
  }
}

describeOnEngines((engine) => {
  it('a line that is not a message, written into the agent\'s output: the session ends with a note, the container goes', async () => {
    const { executor, agent, dispose, gone } = await session(engine)
    const running = executor.run({ command: 'sleep 30' })
    const writer = await executor.run({ command: `echo 'not a message' > /proc/${agent}/fd/1; sleep 5` })
    expect(writer.exitCode).toBeNull()
    expect(writer.note).toMatch(/the container agent's output could not be read \(a line that is not JSON: "not a message"; a command may have written into the agent's pipes\) before the command finished/)
    expect((await running).note).toMatch(/could not be read/)
    await expect(executor.run({ command: 'true' })).rejects.toMatchObject({ code: 'BASH_SPAWN_FAILED' })
    expect(await gone()).toBe(true)
    await dispose()
  })

  it('64 MiB without a newline: the host stops at the line bound and its memory stays bounded', async () => {
    const { executor, agent, dispose, gone } = await session(engine)
    const before = process.memoryUsage().rss
    const writer = await executor.run({ command: `head -c 67108864 /dev/zero | tr '\\0' 'x' > /proc/${agent}/fd/1; sleep 5`, timeoutMs: 60_000 })
    expect(writer.note).toMatch(/could not be read \(a line of over \d+ bytes;/)
    expect(process.memoryUsage().rss - before).toBeLessThan(48 * 1024 * 1024)
    expect(await gone()).toBe(true)
    await dispose()
  })

  it('a well-formed message for an unknown id is dropped; a forged result that is not a result ends the session', async () => {
    const { executor, agent, dispose } = await session(engine)
    const dropped = await executor.run({ command: `echo '{"op":"done","id":99999,"error":{"name":"Error","message":"forged"}}' > /proc/${agent}/fd/1; echo '{"op":"started","id":88888,"pid":1,"startedAt":1}' > /proc/${agent}/fd/1; echo still here` })
    expect(dropped.stdout.head).toBe('still here\n')
    expect((await executor.run({ command: 'echo next' })).stdout.head).toBe('next\n')
    const task = await executor.start({ command: 'sleep 30' })
    const forged = await executor.run({ command: `for id in $(seq 1 20); do echo "{\\"op\\":\\"done\\",\\"id\\":$id,\\"result\\":{\\"stdout\\":7}}"; done > /proc/${agent}/fd/1; sleep 5` })
    expect(forged.note).toMatch(/could not be read \(result\.command is not a string/)
    const outcome = await task.done
    expect(outcome.status === 'completed' && outcome.result.note).toMatch(/could not be read/)
    await dispose()
  })

  it('a megabyte on the agent\'s standard error is not all logged, and the session goes on', async () => {
    const { executor, agent, dispose } = await session(engine)
    const result = await executor.run({ command: `head -c 1048576 /dev/zero | tr '\\0' 'e' > /proc/${agent}/fd/2; echo survived` })
    expect(result.stdout.head).toBe('survived\n')
    expect((await executor.run({ command: 'echo next' })).stdout.head).toBe('next\n')
    await dispose()
  })

  it('with an allow list, a flood of forged connections opens at most the cap of sockets on the host', async () => {
    const { executor, agent, dispose } = await session(engine, { network: { allow: ['example.com'] } })
    const descriptors = (): number => readdirSync('/proc/self/fd').length
    const before = descriptors()
    const result = await executor.run({ command: `for conn in $(seq 100000 101999); do echo "{\\"op\\":\\"net-open\\",\\"conn\\":$conn}"; done > /proc/${agent}/fd/1; sleep 1; echo flooded` })
    expect(result.stdout.head).toBe('flooded\n')
    // Each carried connection is two descriptors of this process: the tunnel's end and the proxy's.
    expect(descriptors() - before).toBeLessThanOrEqual(2 * 256 + 8)
    await dispose()
    expect(descriptors()).toBeLessThanOrEqual(before)
  })
})
