// A 1,000-command soak through one session container ends flat: after a warm-up of 100 commands, the next 900
// (successes, failures, stderr, timeouts, aborts, background tasks killed) leave the host with the same open
// descriptors and no abort listener, the host heap and the agent's memory without growth past a small bound, the
// container with only its init and agent, no file behind in /tmp, and the engine with no helper process more.
import { getEventListeners } from 'node:events'
import { mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { Context, type Fiber } from 'cordis'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { ContainerBashExecutor } from './container-bash-executor.js'
import { describeOnEngines, engineHelpers } from './test-support.js'

const base = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-ct-soak-')))
afterAll(() => rmSync(base, { recursive: true, force: true }))

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

describeOnEngines((engine) => {
  let ctx: Context
  let fiber: Fiber
  let executor: ContainerBashExecutor
  beforeAll(async () => {
    ctx = new Context()
    fiber = await ctx.plugin(ContainerBashExecutor, { ...engine.options(), cwd: base, killGraceMs: 200 })
    executor = ctx.bash as ContainerBashExecutor
  })
  afterAll(() => fiber.dispose())

  const shared = new AbortController()
  /** Command `n` of the soak: mostly quick ones, with every kind of ending mixed in. */
  async function command(n: number): Promise<void> {
    if (n % 100 === 37) {
      const result = await executor.run({ command: 'sleep 5', timeoutMs: 150, signal: shared.signal })
      expect(result.timedOut).toBe(true)
    } else if (n % 100 === 59) {
      const controller = new AbortController()
      const running = executor.run({ command: 'sleep 5', signal: controller.signal })
      setTimeout(() => controller.abort(), 50)
      expect((await running).aborted).toBe(true)
    } else if (n % 100 === 83) {
      const task = await executor.start({ command: 'while :; do echo tick; sleep 0.01; done' })
      await new Promise((resolve) => setTimeout(resolve, 30))
      const outcome = await task.kill()
      expect(outcome.status === 'completed' && outcome.result.stopReason).toBe('kill')
    } else if (n % 3 === 0) {
      const result = await executor.run({ command: `echo out ${n}; echo err ${n} >&2; exit ${n % 7}`, signal: shared.signal })
      expect([result.stdout.head, result.stderr.head, result.exitCode]).toEqual([`out ${n}\n`, `err ${n}\n`, n % 7])
    } else {
      const result = await executor.run({ command: `printf '%s' ${n}`, signal: shared.signal })
      expect([result.stdout.head, result.exitCode]).toEqual([String(n), 0])
    }
  }

  interface Reading {
    readonly descriptors: number
    readonly heapBytes: number
    readonly agentRssBytes: number
    readonly containerProcesses: string[]
    readonly tmpEntries: string
    readonly engineHelpers: number
  }

  async function reading(): Promise<Reading> {
    gc()
    const agentPid = executor.facts?.agentPid ?? 0
    const inside = await executor.run({ command: `grep VmRSS /proc/${agentPid}/status; ps -eo args=; echo "tmp:$(ls -A /tmp | tr '\\n' ' ')"` })
    const lines = inside.stdout.head.trim().split('\n')
    return {
      descriptors: readdirSync('/proc/self/fd').length,
      heapBytes: process.memoryUsage().heapUsed,
      agentRssBytes: Number(/VmRSS:\s+(\d+) kB/.exec(lines[0] ?? '')?.[1]) * 1024,
      // The reading's own shell and ps left out.
      containerProcesses: lines.slice(1, -1).filter((line) => !/^(ps -eo|\S*bash --noprofile --norc -c grep VmRSS)/.test(line)),
      tmpEntries: lines.at(-1) ?? '',
      engineHelpers: engineHelpers(engine, executor.containerId).length,
    }
  }

  it('1,000 commands, 10 at a time, end flat', { timeout: 120_000 }, async () => {
    const batch = async (from: number, to: number): Promise<void> => {
      for (let start = from; start < to; start += 10) {
        await Promise.all(Array.from({ length: Math.min(10, to - start) }, (_, offset) => command(start + offset)))
      }
    }
    await batch(0, 100)
    const before = await reading()
    await batch(100, 1_000)
    const after = await reading()
    expect(after.descriptors).toBeLessThanOrEqual(before.descriptors)
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0)
    expect(after.heapBytes - before.heapBytes).toBeLessThan(8 * 1024 * 1024)
    expect(Number.isFinite(after.agentRssBytes) && Number.isFinite(before.agentRssBytes)).toBe(true)
    expect(after.agentRssBytes - before.agentRssBytes).toBeLessThan(24 * 1024 * 1024)
    // The init and the agent only.
    expect(after.containerProcesses).toEqual(before.containerProcesses)
    expect(after.containerProcesses).toHaveLength(2)
    expect(after.tmpEntries).toBe(before.tmpEntries)
    expect(after.engineHelpers).toBe(before.engineHelpers)
  })
})
