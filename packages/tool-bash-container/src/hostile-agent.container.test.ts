// A command runs as the agent's user. With the host's node (agentNode 'host') the agent runs from an execute-only
// copy and cannot be inspected: a command cannot open its pipes at all (checked first). Otherwise (the image's node,
// or protectAgent: false, which the rest of this file uses to get at the stream) a command can open the agent's
// pipes through /proc/<agent>/fd and write into the stream the host reads (or the one the agent reads). The host
// treats that stream as untrusted input: whatever is written there, the host process stays up and bounded, a line
// that is not a message ends the session as a dead container would (every call with a note, later calls
// BASH_SPAWN_FAILED, the container gone), and a well-formed message for nothing the host knows is dropped.
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
  // The agent left inspectable where it could be protected, so that the tests can write into its stream.
  const unprotected = on.options().agentNode === undefined ? { protectAgent: false } : {}
  const fiber = await ctx.plugin(ContainerBashExecutor, { ...on.options(), cwd: base, ...unprotected, ...config })
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
  it('with the host\'s node the agent is protected: a command cannot open its pipes or read its environment; the control can', async () => {
    const ctx = new Context()
    const fiber = await ctx.plugin(ContainerBashExecutor, { ...engine.options(), cwd: base })
    const executor = ctx.bash as ContainerBashExecutor
    const agent = executor.facts?.agentPid ?? 0
    const probe = `for f in fd/0 fd/1; do (echo '{"op":"exit"}' > /proc/${agent}/$f) 2>/dev/null && echo "wrote $f"; done; cat /proc/${agent}/environ >/dev/null 2>&1 && echo "read environ"; echo done`
    if (engine.options().agentNode === undefined) {
      expect(executor.config.protectAgent).toBe(true)
      expect(executor.facts?.agentInspectable).toBe(false)
      expect((await executor.run({ command: probe })).stdout.head).toBe('done\n')
      expect((await executor.run({ command: 'echo the session goes on' })).stdout.head).toBe('the session goes on\n')
    } else {
      // The image's node: readable, so the agent can be inspected (documented); the probe gets through, as the
      // control below does with the host's node unprotected.
      expect(executor.config.protectAgent).toBe(false)
      expect(executor.facts?.agentInspectable).toBe(true)
    }
    await fiber.dispose()
    const control = await session(engine)
    expect(control.executor.facts?.agentInspectable).toBe(true)
    const through = await control.executor.run({ command: `cat /proc/${control.agent}/environ >/dev/null && echo "read environ"` })
    expect(through.stdout.head).toBe('read environ\n')
    await control.dispose()
  })

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
    // Usually the line bound; when one of the agent's own messages lands inside the flood (a pipe write past 4 KiB is
    // not atomic), its newline ends a line that is not JSON first. Either way the session ends.
    expect(writer.note).toMatch(/could not be read \((a line of over \d+ bytes|a line that is not JSON: "x+);/)
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
