// The model-facing bash tools behave the same over both executors: the same texts, markers, metas and task
// protocol, whether commands run locally or in the sandbox.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BashTools, LocalBashExecutor } from '@dsh/tool-bash'
import type { ToolExecutionResult } from '@dsh/tools-core'
import { createToolContext, type ToolTestContext } from '@dsh/tools-testing'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { SandboxedBashExecutor } from './sandboxed-bash-executor.js'
import { describeInSandbox } from './test-support.js'

const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-sbx-tools-')))
const workdir = join(scratch, 'work')
mkdirSync(workdir)
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const EXECUTORS = [
  ['LocalBashExecutor', LocalBashExecutor],
  ['SandboxedBashExecutor', SandboxedBashExecutor],
] as const

const text = (result: ToolExecutionResult): string => (result.content[0]?.type === 'text' ? result.content[0].text : '')
let serial = 0

describeInSandbox(() => {
  describe.each(EXECUTORS)('the bash tools over %s', (_name, executor) => {
    let t: ToolTestContext
    const call = (name: string, args: unknown, signal?: AbortSignal): Promise<ToolExecutionResult> =>
      t.tools.execute({ callId: `call_${(serial += 1)}`, name, arguments: args, signal })

    beforeAll(async () => {
      t = await createToolContext({
        plugins: [
          [executor, { cwd: workdir, tempDir: scratch, killGraceMs: 300, outputWindowBytes: 256 }],
          [BashTools, {}],
        ],
      })
    })
    afterAll(async () => {
      await t.dispose()
    })
    afterEach(() => rmSync(join(workdir, 'out.txt'), { force: true }))

    it('exit 0 has no marker, a nonzero exit is not an error, empty output says so', async () => {
      expect(text(await call('bash', { command: 'echo hi' }))).toBe('hi')
      const failed = await call('bash', { command: 'echo oops >&2; exit 3' })
      expect(failed.isError).toBe(false)
      expect(text(failed)).toBe('[stderr]\noops\n[exit code: 3]')
      expect((failed.meta as { exitCode: number }).exitCode).toBe(3)
      expect(text(await call('bash', { command: 'true' }))).toBe('(no output)')
    })

    it('writes in the workdir, in workdir-relative paths', async () => {
      expect(text(await call('bash', { command: 'echo kept > out.txt && cat out.txt' }))).toBe('kept')
      mkdirSync(join(workdir, 'sub'), { recursive: true })
      expect(text(await call('bash', { command: 'pwd', workdir: 'sub' }))).toBe(join(workdir, 'sub'))
    })

    it('truncates a long stream with a marker naming the spill file', async () => {
      const result = await call('bash', { command: 'head -c 5000 /dev/zero | tr "\\0" a' })
      expect(text(result)).toMatch(/\[output truncated: 4744 of 5000 bytes of stdout omitted; full output: \/.+\]/)
    })

    it('a timeout stops the command and says so', async () => {
      const result = await call('bash', { command: 'sleep 30', timeout: 400 })
      expect(text(result)).toMatch(/\[timed out after 400ms\]/)
      expect((result.meta as { timedOut: boolean }).timedOut).toBe(true)
    })

    it('an aborted call is an ABORTED error', async () => {
      const controller = new AbortController()
      setTimeout(() => controller.abort(), 300)
      const result = await call('bash', { command: 'sleep 30' }, controller.signal)
      expect(result.isError).toBe(true)
      expect(result.error?.code).toMatch(/ABORTED/)
    })

    it('background tasks: run_in_background, bash_output, bash_kill', async () => {
      const started = await call('bash', { command: 'echo ready; sleep 30', run_in_background: true })
      const taskId = (started.meta as { taskId: string }).taskId
      let read = await call('bash_output', { task_id: taskId })
      for (let attempt = 0; attempt < 50 && !text(read).includes('ready'); attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        read = await call('bash_output', { task_id: taskId })
      }
      expect(text(read)).toContain('ready')
      expect(text(read)).toContain(`[task ${taskId} is still running]`)
      const killed = await call('bash_kill', { task_id: taskId })
      expect(text(killed)).toContain(`[task ${taskId} was killed]`)
      expect((await call('bash_output', { task_id: taskId })).error?.code).toBe('BASH_UNKNOWN_TASK')
    })
  })
})
