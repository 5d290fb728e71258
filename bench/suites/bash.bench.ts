// The bash executor against raw child_process: spawn overhead, output throughput and memory, and how fast a
// cancelled process tree is gone.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { BashTools, LocalBashExecutor, type BashResult, type LocalBashConfig } from '@dsh/tool-bash'
import { ToolRegistry } from '@dsh/tools-registry'
import { BIG_COMMAND, OUTPUT_BYTES, rawOutputDiscarded, rawTrue } from '../bash-runners.js'
import { defineSuite, type MeasureOptions } from '../harness.js'

const bigCommand = BIG_COMMAND
const scratch = mkdtempSync(join(tmpdir(), 'dsh-bash-bench-'))
const heavy: MeasureOptions = { min_samples: 5, max_samples: 10, min_cpu_time: 0 }
const treeOptions: MeasureOptions = { min_samples: 20, max_samples: 40, min_cpu_time: 0 }
/** Disposers of every executor the suite loaded (disposing twice is harmless). */
const disposers: (() => Promise<void>)[] = []

/** A registry with the local executor and the bash tools: what a harness runs. */
async function loadToolPipeline(): Promise<Context> {
  const ctx = new Context()
  const fibers = [
    await ctx.plugin(ToolRegistry),
    await ctx.plugin(LocalBashExecutor, { cwd: scratch, tempDir: scratch }),
    await ctx.plugin(BashTools),
  ]
  disposers.push(async () => {
    for (const fiber of fibers.reverse()) await fiber.dispose()
  })
  return ctx
}

let callSerial = 0

async function loadExecutor(config: LocalBashConfig = {}): Promise<{ ctx: Context; dispose: () => Promise<void> }> {
  const ctx = new Context()
  const fiber = await ctx.plugin(LocalBashExecutor, { cwd: scratch, tempDir: scratch, ...config })
  const dispose = (): Promise<void> => fiber.dispose()
  disposers.push(dispose)
  return { ctx, dispose }
}

/** Live (not zombie) per /proc, the way the executor's tests check. */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
    return state !== 'Z' && state !== 'X'
  } catch {
    return false
  }
}

function pidsIn(text: string): number[] {
  return text.split('\n').filter((line) => /^\d+$/.test(line.trim())).map(Number)
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

async function waitForPids(file: string, count: number): Promise<number[]> {
  for (;;) {
    if (existsSync(file)) {
      const pids = pidsIn(readFileSync(file, 'utf8'))
      if (pids.length >= count) return pids
    }
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

function treeCommand(file: string): string {
  return `echo $$ > ${file}; sleep 100 & echo $! >> ${file}; sleep 100 & echo $! >> ${file}; wait`
}

function assertAllDead(pids: number[]): void {
  const alive = pids.filter(isAlive)
  if (alive.length > 0) throw new Error(`processes survived the abort: ${alive.join(', ')}`)
}

let treeSerial = 0
const memory = { runs: 0, peakRss: 0, maxGrowth: 0, baselineRss: 0 }
const abortTimes: number[] = []
const rawAbortTimes: number[] = []

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN
}

export default defineSuite({
  name: 'bash',
  description:
    'The `bash` tool and the local executor of `@dsh/tool-bash` (a real cordis Context) against raw `child_process.spawn`. ' +
    '`bash` tool: `ctx.tools.execute` of `bash` with `{ command: "true" }` through the registry, the tools plugin and the local executor, ' +
    'until the frozen result (raw: `spawn("bash", ["-c", "true"])` until `exit`). `true`: the same through `ctx.bash.run` alone. 200 MB: `head -c 200000000 /dev/zero` ' +
    '(raw: piped stdout discarded, until `close`; raw to a file: the same, written to a file with backpressure, then deleted; ' +
    'ours: bounded capture plus the complete spill file written to disk, a fresh executor per run so each run spills all ' +
    '200 MB, and its dispose deletes the file; ours with `spillCapBytes: 0`: the bounded capture alone). Abort: a bash with two `sleep` children, ' +
    'timed from the abort until every pid is gone (raw: SIGTERM to the group, then polling `/proc` until no process is alive).',
  versions: {
    '@dsh/tool-bash': JSON.parse(readFileSync(new URL('../../packages/tool-bash/package.json', import.meta.url), 'utf8')).version,
    bash: (spawnSync('bash', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0] ?? '').replace('GNU bash, version ', ''),
  },
  async groups() {
    const fast = await loadExecutor()
    const noSpill = await loadExecutor({ spillCapBytes: 0 })
    const pipeline = await loadToolPipeline()
    const { execute } = pipeline.tools
    return [
      {
        title: '`bash` tool end to end (registry + tools + local executor)',
        baseline: 'raw spawn',
        target: { case: 'ctx.tools.execute bash', maxRatio: 1.3, label: '≤ 1.3×' },
        cases: {
          'raw spawn': rawTrue,
          'ctx.tools.execute bash': async () => {
            const result = await execute({ callId: `call_${(callSerial += 1)}`, name: 'bash', arguments: { command: 'true' } })
            if (result.isError || (result.meta as { exitCode?: unknown }).exitCode !== 0) throw new Error('bash true failed')
          },
        },
      },
      {
        title: '`true` end to end',
        baseline: 'raw spawn',
        target: { case: 'ctx.bash.run', maxRatio: 1.3, label: '≤ 1.3×' },
        cases: {
          'raw spawn': rawTrue,
          'ctx.bash.run': async () => {
            const result = await fast.ctx.bash.run({ command: 'true' })
            if (result.exitCode !== 0) throw new Error('true failed')
          },
        },
      },
      {
        title: '200 MB of output',
        baseline: 'raw spawn, output discarded',
        target: { case: 'ctx.bash.run (spilled to disk)', maxRatio: 2, label: '≥ 50% of raw throughput (≤ 2×)' },
        options: heavy,
        cases: {
          'raw spawn, output discarded': rawOutputDiscarded,
          'raw spawn, output written to a file': async () => {
            const file = join(scratch, 'raw-output.log')
            const sink = createWriteStream(file, { highWaterMark: 1 << 22 })
            const child = spawn('bash', ['-c', bigCommand], { stdio: ['ignore', 'pipe', 'ignore'] })
            child.stdout.on('data', (chunk: Buffer) => {
              if (!sink.write(chunk)) {
                child.stdout.pause()
                sink.once('drain', () => child.stdout.resume())
              }
            })
            await once(child, 'close')
            await new Promise<void>((resolve) => sink.end(resolve))
            rmSync(file)
          },
          'ctx.bash.run (spilled to disk)': async () => {
            const executor = await loadExecutor()
            const before = process.memoryUsage.rss()
            let peak = before
            const sampler = setInterval(() => {
              peak = Math.max(peak, process.memoryUsage.rss())
            }, 10)
            let result: BashResult
            try {
              result = await executor.ctx.bash.run({ command: bigCommand })
            } finally {
              clearInterval(sampler)
            }
            peak = Math.max(peak, process.memoryUsage.rss())
            memory.runs += 1
            memory.peakRss = Math.max(memory.peakRss, peak)
            memory.maxGrowth = Math.max(memory.maxGrowth, peak - before)
            memory.baselineRss = memory.baselineRss === 0 ? before : Math.min(memory.baselineRss, before)
            if (result.stdout.totalBytes !== OUTPUT_BYTES || result.stdout.spill?.bytes !== OUTPUT_BYTES) {
              throw new Error('the executor lost output')
            }
            await executor.dispose()
          },
          'ctx.bash.run (spilling off)': async () => {
            const result = await noSpill.ctx.bash.run({ command: bigCommand })
            if (result.stdout.totalBytes !== OUTPUT_BYTES) throw new Error('the executor lost output')
          },
        },
      },
      {
        title: 'abort a process tree until every pid is gone',
        baseline: 'raw SIGTERM to the group',
        options: treeOptions,
        cases: {
          'raw SIGTERM to the group': function* () {
            yield {
              async [0]() {
                const file = join(scratch, `raw-tree-${(treeSerial += 1)}`)
                const child: ChildProcess = spawn('bash', ['-c', treeCommand(file)], { detached: true, stdio: 'ignore' })
                const exited = once(child, 'exit')
                const pids = await waitForPids(file, 3)
                return { pid: child.pid as number, pids, exited }
              },
              async bench(tree: { pid: number; pids: number[]; exited: Promise<unknown> }) {
                const started = performance.now()
                process.kill(-tree.pid, 'SIGTERM')
                await tree.exited
                while (tree.pids.some(isAlive)) await tick()
                rawAbortTimes.push(performance.now() - started)
              },
            }
          },
          'ctx.bash.run + abort': function* () {
            yield {
              async [0]() {
                const file = join(scratch, `tree-${(treeSerial += 1)}`)
                const controller = new AbortController()
                const running = fast.ctx.bash.run({ command: treeCommand(file), signal: controller.signal })
                const pids = await waitForPids(file, 3)
                return { controller, running, pids }
              },
              async bench(tree: { controller: AbortController; running: Promise<BashResult>; pids: number[] }) {
                const started = performance.now()
                tree.controller.abort()
                const result = await tree.running
                assertAllDead(tree.pids)
                abortTimes.push(performance.now() - started)
                if (!result.aborted) throw new Error('the run did not report the abort')
              },
            }
          },
        },
      },
    ]
  },
  notes() {
    const mb = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`
    return [
      `- Memory, 200 MB through the executor (${memory.runs} runs, RSS sampled every 10 ms): peak RSS growth during a run ` +
        `${mb(memory.maxGrowth)} (target < 100 MB); peak RSS of the whole bench process ${mb(memory.peakRss)} ` +
        `(the process sat at ${mb(memory.baselineRss)} before the runs).`,
      `- Abort → every pid of the tree gone (bash + 2 children, result in hand, checked in /proc): median ` +
        `${median(abortTimes).toFixed(2)} ms over ${abortTimes.length} runs, max ${Math.max(...abortTimes).toFixed(2)} ms ` +
        `(target < 50 ms); raw SIGTERM + polling: median ${median(rawAbortTimes).toFixed(2)} ms.`,
    ].join('\n')
  },
  async dispose() {
    for (const dispose of disposers) await dispose()
    rmSync(scratch, { recursive: true, force: true })
  },
})
