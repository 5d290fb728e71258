import type { ChildProcess } from 'node:child_process'
import { closeSync, openSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Context, type Fiber } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import type { BashResult } from './bash-executor.js'
import type { BashLauncher, BashLaunchContext } from './bash-launcher.js'
import { BashSpawnError } from './bash-spawn-error.js'
import type { LocalBashConfig } from './local-bash-config.js'
import { LocalBashExecutor } from './local-bash-executor.js'
import { isProcessAlive } from './process-group.js'
import { createToolContext } from '@dsh/tools-testing'
import { BashTools } from './bash-tools.js'
import { formatBashResult } from './format-bash-output.js'
import { pidsIn, resultText, useScratch, waitFor } from './test-support.js'

const { scratch, spillRoot } = useScratch('tool-bash-launcher-')

/** A wrapper that prints a marker, then execs the plain shell: the smallest launcher that changes what runs. */
const WRAPPER = 'echo wrapped-by-launcher; exec "$0" --noprofile --norc -c "$1"'

const fibers: Fiber[] = []
afterEach(async () => {
  await Promise.all(fibers.splice(0).map((fiber) => fiber.dispose()))
})

async function load(launcher: BashLauncher, config: LocalBashConfig = {}): Promise<LocalBashExecutor> {
  class Launched extends LocalBashExecutor {
    constructor(ctx: Context, options: LocalBashConfig) {
      super(ctx, options, launcher)
    }
  }
  const ctx = new Context()
  fibers.push(await ctx.plugin(Launched, { cwd: scratch, tempDir: spillRoot, killGraceMs: 300, ...config }))
  return ctx.bash as LocalBashExecutor
}

function wrapped(context: BashLaunchContext): { file: string; args: string[] } {
  return { file: '/bin/sh', args: ['-c', WRAPPER, context.shell, context.request.command] }
}

function text(result: BashResult): string {
  return result.stdout.head + result.stdout.tail
}

describe('the launch seam of LocalBashExecutor', () => {
  it('runs what the launcher plans, with the request and the scrubbed environment', async () => {
    const seen: BashLaunchContext[] = []
    const bash = await load((context) => {
      seen.push(context)
      return wrapped(context)
    })
    const result = await bash.run({ command: 'echo "$HOME"; exit 3' })
    expect(text(result)).toBe(`wrapped-by-launcher\n${process.env.HOME ?? ''}\n`)
    expect(result.exitCode).toBe(3)
    expect(seen).toHaveLength(1)
    expect(seen[0]?.request).toMatchObject({ command: 'echo "$HOME"; exit 3', cwd: scratch })
    expect(seen[0]?.shell).toMatch(/\/bash$/)
    expect(Object.keys(seen[0]?.env ?? {})).not.toContain('VITEST')
  })

  it('keeps the timeout and the process-group stop for a launched command (no process outlives it)', async () => {
    const bash = await load(wrapped)
    const result = await bash.run({ command: 'sleep 300 & echo $!; wait', timeoutMs: 500 })
    expect(result.timedOut).toBe(true)
    const [sleeper] = pidsIn(text(result))
    expect(sleeper).toBeGreaterThan(0)
    await waitFor(() => !isProcessAlive(sleeper as number))
  })

  it('hands the plan env, cwd and extra fds to the process', async () => {
    const file = join(scratch, 'fd-three.txt')
    writeFileSync(file, 'through fd 3\n')
    const closed: number[] = []
    const bash = await load((context) => {
      const fd = openSync(file, 'r')
      return {
        file: context.shell,
        args: ['--noprofile', '--norc', '-c', context.request.command],
        env: { PATH: context.env.PATH ?? '/usr/bin:/bin', PLANNED: 'yes' },
        cwd: '/',
        extraFds: [fd],
        cleanup: () => {
          closeSync(fd)
          closed.push(fd)
        },
      }
    })
    const result = await bash.run({ command: 'cat <&3; echo "$PLANNED $(pwd)"' })
    expect(text(result)).toBe('through fd 3\nyes /\n')
    expect(closed).toHaveLength(1)
  })

  it('opens a Node IPC channel when the plan asks for one (a helper can hand a message over), and disconnects it at cleanup', async () => {
    const messages: unknown[] = []
    const children: ChildProcess[] = []
    const bash = await load((context) => ({
      ...wrapped(context),
      channel: (child) => {
        children.push(child)
        child.on('message', (message) => messages.push(message))
      },
    }))
    const result = await bash.run({
      command: `"${process.execPath}" -e 'process.send({ from: "helper" }, () => process.exit(0))'; echo done`,
    })
    expect(text(result)).toBe('wrapped-by-launcher\ndone\n')
    expect(messages).toEqual([{ from: 'helper' }])
    expect(children).toHaveLength(1)
    expect(children[0]?.connected).toBe(false)
    // Without the hook no channel is opened: nothing names one in the environment.
    const plain = await load(wrapped)
    expect(text(await plain.run({ command: 'echo "[${NODE_CHANNEL_FD:-none}]"' }))).toBe('wrapped-by-launcher\n[none]\n')
  })

  it('lets settle replace the result or turn it into a BashSpawnError, and cleans up once either way', async () => {
    let cleanups = 0
    let fail = false
    const bash = await load((context) => ({
      ...wrapped(context),
      settle: (result) =>
        fail
          ? new BashSpawnError('the wrapper could not set up', context.request.cwd)
          : Object.freeze({ ...result, exitCode: 42 }),
      cleanup: () => {
        cleanups += 1
      },
    }))
    expect((await bash.run({ command: 'true' })).exitCode).toBe(42)
    fail = true
    const error: unknown = await bash.run({ command: 'true' }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    )
    expect(BashSpawnError.isInstance(error)).toBe(true)
    expect((error as Error).message).toBe('the wrapper could not set up')
    const task = await bash.start({ command: 'true' })
    const outcome = await task.done
    expect(outcome.status).toBe('failed')
    expect(cleanups).toBe(3)
  })

  it('keeps the job result when settle throws', async () => {
    const bash = await load((context) => ({
      ...wrapped(context),
      settle: () => {
        throw new Error('settle broke')
      },
    }))
    const result = await bash.run({ command: 'exit 5' })
    expect(result.exitCode).toBe(5)
  })

  it('fails the command with BASH_SPAWN_FAILED when the launcher throws or returns no plan, and runs nothing', async () => {
    const marker = join(scratch, 'launcher-ran')
    let mode: 'throw' | 'nothing' = 'throw'
    const bash = await load(() => {
      if (mode === 'throw') throw new Error('no sandbox today')
      return undefined as never
    })
    const thrown: unknown = await bash.run({ command: `touch ${marker}` }).catch((error: unknown) => error)
    expect(BashSpawnError.isInstance(thrown)).toBe(true)
    expect((thrown as BashSpawnError).code).toBe('BASH_SPAWN_FAILED')
    expect((thrown as Error).message).toContain('no sandbox today')
    expect((thrown as Error).cause).toBeInstanceOf(Error)
    mode = 'nothing'
    const empty: unknown = await bash.run({ command: `touch ${marker}` }).catch((error: unknown) => error)
    expect((empty as Error).message).toContain('no { file, args } plan')
    expect(bash.activeCount).toBe(0)
  })

  it('cleans up a plan whose program cannot be spawned', async () => {
    let cleanups = 0
    const bash = await load(() => ({
      file: join(scratch, 'no-such-wrapper'),
      args: [],
      cleanup: () => {
        cleanups += 1
      },
    }))
    const thrown: unknown = await bash.run({ command: 'true' }).catch((error: unknown) => error)
    expect(BashSpawnError.isInstance(thrown)).toBe(true)
    expect((thrown as Error).message).toContain('no-such-wrapper')
    expect(cleanups).toBe(1)
  })

  it('rejects a launcher that is not a function at construction', () => {
    expect(() => new LocalBashExecutor(new Context(), {}, 'bwrap' as never)).toThrow(TypeError)
  })

  it('shows an executor note after the output, its executorMeta in the meta, and its policy in the bash tool description', async () => {
    class Noted extends LocalBashExecutor {
      constructor(ctx: Context, options: LocalBashConfig) {
        super(ctx, options, (context) => ({
          ...wrapped(context),
          settle: (result) => Object.freeze({ ...result, note: 'Note: a policy block.', executorMeta: { denied: ['a.test:443'] } }),
        }))
        Object.defineProperty(this, 'limits', { value: { ...this.limits, policy: 'Commands run in a test sandbox.' } })
      }
    }
    const t = await createToolContext({
      plugins: [[Noted, { cwd: scratch, tempDir: spillRoot, killGraceMs: 300 }], [BashTools, {}]],
    })
    try {
      const schema = t.tools.schemas().find((tool) => tool.name === 'bash')
      expect(schema?.description).toMatch(/Commands run in a test sandbox\.$/)
      const result = await t.tools.execute({ callId: 'call_note', name: 'bash', arguments: { command: 'echo hi; exit 2' } })
      expect(resultText(result)).toBe('wrapped-by-launcher\nhi\n[exit code: 2]\nNote: a policy block.')
      expect((result.meta as { executor?: unknown }).executor).toEqual({ denied: ['a.test:443'] })
      const task = await t.tools.execute({
        callId: 'call_note_bg',
        name: 'bash',
        arguments: { command: 'exit 1', run_in_background: true },
      })
      const taskId = (task.meta as { taskId: string }).taskId
      await new Promise((resolve) => setTimeout(resolve, 300))
      let read = await t.tools.execute({ callId: 'call_note_read', name: 'bash_output', arguments: { task_id: taskId } })
      for (let attempt = 0; attempt < 50 && resultText(read).includes('still running'); attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        read = await t.tools.execute({ callId: `call_note_read_${attempt}`, name: 'bash_output', arguments: { task_id: taskId } })
      }
      expect(resultText(read)).toContain('[exit code: 1]\nNote: a policy block.')
      expect((read.meta as { executor?: unknown }).executor).toEqual({ denied: ['a.test:443'] })
    } finally {
      await t.dispose()
    }
  })

  it('formats a result without a note exactly as before', () => {
    const empty = { head: '', tail: '', omittedBytes: 0, totalBytes: 0, spill: null }
    const base: BashResult = {
      command: 'x', cwd: '/', pid: 1, exitCode: 1, signal: null, timedOut: false, aborted: false, stopReason: null,
      timeoutMs: 1, durationMs: 1, outputCutOff: null, stdout: empty, stderr: empty,
    }
    expect(formatBashResult(base)).toBe('(no output)\n[exit code: 1]')
    expect(formatBashResult({ ...base, note: '' })).toBe('(no output)\n[exit code: 1]')
    expect(formatBashResult({ ...base, note: 'Note: n.' })).toBe('(no output)\n[exit code: 1]\nNote: n.')
  })
})
