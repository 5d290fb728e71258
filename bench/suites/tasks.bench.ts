// The task layer (issue 35): a call started as a task and its first task_output, against the same tool called in
// the foreground (a defineTool tool, and bash); and 200 MB of output through a task against the host's memory (a
// body's own output, and a bash command's stdout).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BashTools, LocalBashExecutor } from '@dsh/tool-bash'
import type { ToolExecutionResult } from '@dsh/tools-core'
import { ToolRegistry } from '@dsh/tools-registry'
import { defineTool } from '@dsh/tools-schema'
import { TaskService, taskOf } from '@dsh/tool-tasks'
import { Context, type Fiber } from 'cordis'
import { defineSuite } from '../harness.js'

const OUTPUT_BYTES = 200_000_000
const CHUNK = Buffer.alloc(65_536, 'x')
const memoryBudgetBytes = 100 * 1_048_576

/** A fresh registry with the task layer (generous caps: the bench starts many tasks) and the bench's two tools. */
async function load(): Promise<Context> {
  const ctx = new Context()
  await ctx.plugin(ToolRegistry)
  layer = await ctx.plugin(TaskService, { maxRunningPerAgent: 10_000, maxRunningTotal: 10_000, maxFinishedPerAgent: 10_000, notify: false })
  scratch = mkdtempSync(join(tmpdir(), 'dsh-bench-tasks-'))
  await ctx.plugin(LocalBashExecutor, { cwd: scratch, tempDir: scratch })
  await ctx.plugin(BashTools)
  ctx.tools.register(
    defineTool({
      name: 'lookup',
      description: 'Look a word up.',
      parameters: { word: { type: 'string', required: true } },
      execution: { background: 'optional' },
      execute: ({ word }) => `${word}: found`,
    }),
  )
  ctx.tools.register(
    defineTool({
      name: 'firehose',
      description: 'Print a lot.',
      parameters: {},
      execution: { background: 'required' },
      async execute(_args, exec) {
        const task = taskOf(exec)
        for (let sent = 0; sent < OUTPUT_BYTES; sent += CHUNK.length) {
          task?.output(CHUNK)
          if (sent % (64 * CHUNK.length) === 0) await new Promise((resolve) => setImmediate(resolve))
        }
        return 'done'
      },
    }),
  )
  return ctx
}

let serial = 0
const call = (ctx: Context, name: string, args: unknown): Promise<ToolExecutionResult> =>
  ctx.tools.execute({ callId: `call_${++serial}`, name, arguments: args })
const taskId = (result: ToolExecutionResult): string => (result.meta as { task: { id: string } }).task.id

let ctx: Context
let layer: Fiber | undefined
let scratch: string | undefined

/** Waits (through the service, as a harness would) until the task has ended. */
async function ended(id: string): Promise<void> {
  for (let waited = 0; ctx.tasks.get(id)?.status === 'working' && waited < 120_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20))
}

/** Runs `body` while sampling the host's RSS every 5 ms; returns its peak growth in bytes. */
async function rssGrowth(body: () => Promise<void>): Promise<number> {
  globalThis.gc?.()
  const before = process.memoryUsage().rss
  let peak = before
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5)
  try {
    await body()
  } finally {
    clearInterval(sampler)
  }
  return Math.max(peak, process.memoryUsage().rss) - before
}

export default defineSuite({
  name: 'tasks',
  description:
    '`@dsh/tool-tasks`: a trivial `defineTool` tool with `execution: { background: "optional" }`, called in the foreground, against the same call with `run_in_background: true` followed by its first `task_output` (`wait_ms: 1000`, so the read returns the final result as soon as the task has ended). 200 MB through a task: a body that writes 200,000,000 bytes through `taskOf(exec).output` in 64 KiB chunks (the default 64 KiB window, 64 MiB spill cap), then one read of the result; the host\'s peak RSS growth over the run is the figure (target: under 100 MB). The same for `bash` on the layer (`@dsh/tool-bash` with the local executor): `echo tide` in the foreground against the same command with `run_in_background: true` and its first `task_output` (`wait_ms: 1000`, answered at the first output); and `head -c 200000000 /dev/zero | tr "\\0" x` as a task (tool-bash moves every chunk into the task; the executor also spills the stream to its own file).',
  versions: {
    '@dsh/tool-tasks': JSON.parse(readFileSync(new URL('../../packages/tool-tasks/package.json', import.meta.url), 'utf8')).version,
  },
  async groups() {
    ctx = await load()
    return [
      {
        title: 'a call in the foreground against the same call as a task and its first task_output',
        baseline: 'foreground call',
        rounds: 3,
        cases: {
          'foreground call': async () => {
            const result = await call(ctx, 'lookup', { word: 'tide' })
            if (result.isError) throw new Error('lookup failed')
          },
          'started as a task + first task_output': async () => {
            const started = await call(ctx, 'lookup', { word: 'tide', run_in_background: true })
            const read = await call(ctx, 'task_output', { task_id: taskId(started), wait_ms: 1_000 })
            if (read.isError || !JSON.stringify(read.content).includes('tide: found')) throw new Error('the task did not end as expected')
          },
        },
      },
      {
        title: 'bash: a command in the foreground against the same command as a layer task and its first task_output',
        baseline: 'bash in the foreground',
        rounds: 3,
        cases: {
          'bash in the foreground': async () => {
            const result = await call(ctx, 'bash', { command: 'echo tide' })
            if (result.isError) throw new Error('bash failed')
          },
          'bash started as a task + first task_output': async () => {
            const started = await call(ctx, 'bash', { command: 'echo tide', run_in_background: true })
            const id = (started.meta as { taskId: string }).taskId
            const read = await call(ctx, 'task_output', { task_id: id, wait_ms: 1_000 })
            if (read.isError || !JSON.stringify(read.content).includes('tide')) throw new Error('the bash task did not print')
          },
        },
      },
    ]
  },
  async notes() {
    const lines: string[] = []
    for (const source of ['a body', 'bash'] as const) {
      let outputBytes = 0
      let text = ''
      const started = performance.now()
      const growth = await rssGrowth(async () => {
        const result =
          source === 'a body'
            ? await call(ctx, 'firehose', {})
            : await call(ctx, 'bash', { command: `head -c ${OUTPUT_BYTES} /dev/zero | tr '\\0' x`, run_in_background: true })
        const id = source === 'a body' ? taskId(result) : (result.meta as { taskId: string }).taskId
        // The harness waits for the end through the service (a model would long-poll task_output; each of its reads
        // returns at most 30,000 bytes, so reading 200 MB that way is not what this measures).
        await ended(id)
        const read = await call(ctx, 'task_output', { task_id: id, since: OUTPUT_BYTES - 100 })
        text = JSON.stringify(read.content)
        outputBytes = (read.meta as { task: { outputBytes: number } }).task.outputBytes
      })
      const elapsed = performance.now() - started
      if (!text.includes('Its result')) throw new Error(`the 200 MB task (${source}) did not end: ${text.slice(0, 300)}`)
      lines.push(
        `- 200 MB through a task (${source === 'a body' ? "a body's own output" : "a bash command's stdout, moved in by tool-bash"}): ${outputBytes.toLocaleString('en')} bytes counted, ended in ${(elapsed / 1000).toFixed(1)} s; host RSS grew by at most **${(growth / 1_048_576).toFixed(1)} MB** (target < ${memoryBudgetBytes / 1_048_576} MB: ${growth < memoryBudgetBytes ? 'met' : '**missed**'}).`,
      )
    }
    await layer?.dispose()
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true })
    return lines.join('\n')
  },
})
