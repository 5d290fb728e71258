// The soak (not a unit test): 100,000 `execute` calls with random policies, aborts and timeouts, then 20,000 calls
// through hostile listeners, wrappers, bodies and signals (soak-hostile.ts), then rounds of 10,000 concurrent calls
// of a trivial async tool (soak-concurrent.ts: flat heap, no listener growth), then 1,000 bash commands with random
// kills, processes escaping the group and hosts dying by a signal. It reports heap before/after, listeners and
// timers left, processes left (by pid) and temp files left, writes the "soak" section of results.md, and exits
// non-zero when anything is left over or the heap keeps growing after warm-up.
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { getEventListeners, setMaxListeners } from 'node:events'
import { tmpdir } from 'node:os'
import type { PreToolDecision, ToolApprovalOutcome, ToolDefinition } from '@dsh/tools-core'
import { TimeoutPolicy } from '@dsh/timeout-policy'
import { LocalBashExecutor } from '@dsh/tool-bash'
import { ToolRegistry } from '@dsh/tools-registry'
import { Context } from 'cordis'
import { describeMachine, writeResultsSection } from './harness.js'
import { soakConcurrent } from './soak-concurrent.js'
import { soakHostile } from './soak-hostile.js'

const CALLS = Number(process.env.SOAK_CALLS ?? 100_000)
const COMMANDS = Number(process.env.SOAK_COMMANDS ?? 1_000)
const BATCH = 200

/** A small deterministic PRNG, so a failing soak can be replayed (SOAK_SEED). */
function prng(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let value = state
    value = Math.imul(value ^ (value >>> 15), value | 1)
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61)
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296
  }
}
const seed = Number(process.env.SOAK_SEED ?? Date.now() % 1_000_000)
const random = prng(seed)
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
const heapMiB = (): number => {
  globalThis.gc?.()
  globalThis.gc?.()
  return process.memoryUsage().heapUsed / 2 ** 20
}
const timers = (): number => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length

function tool(name: string, body: ToolDefinition['execute'], timeoutMs?: number): ToolDefinition {
  return {
    name,
    description: `soak tool ${name}`,
    parameters: { type: 'object', properties: { n: { type: 'integer' } } },
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    execute: body,
  }
}

async function soakExecute(): Promise<string[]> {
  const ctx = new Context()
  await ctx.plugin(ToolRegistry)
  const policy = await ctx.plugin(TimeoutPolicy, { graceMs: 3 })
  const tools = ctx.tools
  const text = (value: string) => [{ type: 'text' as const, text: value }]
  tools.register(tool('instant', async (args) => text(JSON.stringify(args))))
  tools.register(tool('fails', async () => { throw new Error('boom') }))
  tools.register(
    tool('cooperative', (_args, exec) => new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve(text('done')), 1 + Math.floor(random() * 4))
      exec.signal.addEventListener('abort', () => { clearTimeout(timer); reject(exec.signal.reason) }, { once: true })
    }), 2),
  )
  tools.register(tool('stubborn', () => sleep(6).then(() => text('late')), 2))
  const decisions: PreToolDecision[] = [{ kind: 'allow' }, { kind: 'deny', reason: 'soak' }, { kind: 'ask' }]
  tools.on('tools/pre-execute', (_exec, next) => (random() < 0.5 ? next() : pick(decisions)))
  tools.guard((exec) => ((exec.arguments as { n: number }).n % 13 === 0 ? 'thirteen' : undefined))
  const outcomes: ToolApprovalOutcome[] = [{ outcome: 'allowed-once' }, { outcome: 'rejected' }, { outcome: 'cancelled' }, { outcome: 'unavailable' }]
  ctx.provide('toolApproval')
  ctx.set('toolApproval', { requestApproval: async () => pick(outcomes) })
  let late = 0
  ctx.on('timeout/late-settlement', () => void late++)

  const caller = new AbortController() // one long-lived caller signal, like a session's
  setMaxListeners(BATCH + 10, caller.signal) // the soak itself links every in-flight call to it
  const codes = new Map<string, number>()
  const agent = { id: 'soak-agent' }
  let heapAfterWarmup = 0
  const heapBefore = heapMiB()
  const started = performance.now()
  for (let done = 0; done < CALLS; done += BATCH) {
    const calls = Array.from({ length: Math.min(BATCH, CALLS - done) }, (_, index) => {
      const n = done + index
      const local = new AbortController()
      const link = () => local.abort()
      caller.signal.addEventListener('abort', link, { once: true })
      const roll = random()
      if (roll < 0.05) local.abort()
      else if (roll < 0.1) setTimeout(() => local.abort(), Math.floor(random() * 3))
      const name = pick(['instant', 'instant', 'fails', 'cooperative', 'stubborn', 'ghost'])
      const args = random() < 0.02 ? { n, bad: undefined } : { n }
      return tools
        .execute({ callId: `c${n}`, name, arguments: args, agent, signal: local.signal })
        .finally(() => caller.signal.removeEventListener('abort', link))
    })
    for (const result of await Promise.all(calls)) {
      const code = result.error?.code ?? 'ok'
      codes.set(code, (codes.get(code) ?? 0) + 1)
    }
    if (done + BATCH === 10_000) heapAfterWarmup = heapMiB()
  }
  await sleep(20) // let abandoned tools settle and report
  const elapsed = (performance.now() - started) / 1000
  const heapAfter = heapMiB()
  const leftTimers = timers()
  const callerListeners = getEventListeners(caller.signal, 'abort').length
  await policy.dispose()
  const lines = [
    `### 100,000 executions`,
    '',
    `${CALLS.toLocaleString('en')} calls in ${elapsed.toFixed(1)} s (${BATCH} at a time), seed ${seed}: random pre-execute decisions (allow/deny/ask), random approval outcomes, a guard, aborts before and during the call, tools that succeed, throw, honour their 2 ms deadline, ignore it (abandoned after a 3 ms grace) or do not exist, and arguments that are not JSON.`,
    '',
    `| measure | value |`,
    `| --- | --- |`,
    `| heap before / after warm-up (10,000 calls) / after | ${heapBefore.toFixed(1)} / ${heapAfterWarmup.toFixed(1)} / ${heapAfter.toFixed(1)} MiB |`,
    `| heap growth after warm-up | ${(heapAfter - heapAfterWarmup).toFixed(1)} MiB |`,
    `| timers left | ${leftTimers} |`,
    `| abort listeners left on the long-lived caller signal | ${callerListeners} |`,
    `| late settlements reported | ${late} |`,
    `| outcomes | ${[...codes].sort().map(([code, count]) => `${code} ${count}`).join(', ')} |`,
  ]
  const problems: string[] = []
  if (leftTimers > 0) problems.push(`${leftTimers} timers left`)
  if (callerListeners > 0) problems.push(`${callerListeners} listeners left on the caller signal`)
  if (heapAfter - heapAfterWarmup > 8) problems.push(`heap grew ${(heapAfter - heapAfterWarmup).toFixed(1)} MiB after warm-up`)
  return [...lines, '', problems.length ? `Problems: ${problems.join('; ')}` : 'Leftovers: none.', ...problems.map((problem) => `!${problem}`)]
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  // A zombie still answers kill(pid, 0); it is dead for our purposes.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')
  } catch {
    return false
  }
}

/** Waits until the process `$!` leads a session of its own: it has left the command's group and session. */
const UNTIL_ESCAPED = 'while [ "$(cut -d" " -f6 /proc/$!/stat)" != "$!" ]; do sleep 0.01; done'

/** A host for {@link soakDyingHosts}: loads the executor, runs a command and a task that record their pids, spills. */
const DYING_HOST = `
import { readFileSync } from 'node:fs'
import { Context } from 'cordis'
import { LocalBashExecutor } from '@dsh/tool-bash'
const [pidFile, tempDir] = process.argv.slice(1)
const ctx = new Context()
await ctx.plugin(LocalBashExecutor, { tempDir, outputWindowBytes: 64 })
const script = [
  'echo $$ >> ' + pidFile,
  'sleep 1000 & echo $! >> ' + pidFile,
  '(set -m; sleep 1000 & echo $! >> ' + pidFile + '; wait) &',
  '(setsid sleep 1000 & echo $! >> ' + pidFile + '; wait) &',
  'head -c 4096 /dev/zero | tr "\\\\0" x',
  'wait',
].join('\\n')
void ctx.bash.run({ command: script })
await ctx.bash.start({ command: script })
const count = () => readFileSync(pidFile, 'utf8').split('\\n').filter(Boolean).length
while (count() < 8 || ctx.bash.spillDirectory === null) await new Promise((resolve) => setTimeout(resolve, 10))
process.stdout.write('ready ' + ctx.bash.spillDirectory + '\\n')
`

/** Hosts dying by SIGINT, SIGTERM and SIGHUP while commands run: their processes and spill directories must go too. */
async function soakDyingHosts(): Promise<{
  count: number
  pids: number[]
  alive: number[]
  spillsLeft: number
  wrongExits: string[]
}> {
  const root = mkdtempSync(join(tmpdir(), 'dsh-soak-hosts-'))
  const rounds = Math.max(1, Math.min(5, Math.round(COMMANDS / 200)))
  const pids: number[] = []
  const wrongExits: string[] = []
  let spillsLeft = 0
  let count = 0
  let alive: number[] = []
  try {
    for (let round = 0; round < rounds; round++) {
      for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
        count += 1
        const pidFile = join(root, `host-${count}.pids`)
        writeFileSync(pidFile, '')
        const host = spawn(process.execPath, ['--input-type=module', '-e', DYING_HOST, pidFile, root], {
          stdio: ['ignore', 'pipe', 'inherit'],
        })
        const exited = new Promise<string>((resolve) => host.once('exit', (code, signal) => resolve(signal ?? `exit ${code}`)))
        let output = ''
        host.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString()
        })
        const started = performance.now()
        while (!/^ready .+\n/m.test(output) && performance.now() - started < 30_000) await sleep(10)
        const spill = /^ready (.+)$/m.exec(output)?.[1]
        pids.push(...(readFileSync(pidFile, 'utf8').match(/^\d+$/gm) ?? []).map(Number))
        host.kill(signal)
        const how = await exited
        if (how !== signal) wrongExits.push(`${signal} → ${how}`)
        if (spill === undefined || existsSync(spill)) spillsLeft += 1
      }
    }
    for (let wait = 0; wait < 40 && pids.some(isAlive); wait++) await sleep(50)
    alive = pids.filter(isAlive)
  } finally {
    // Whatever the count says, nothing of the soak stays behind.
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // Gone, as it should be.
      }
    }
    rmSync(root, { recursive: true, force: true })
  }
  return { count, pids, alive, spillsLeft, wrongExits }
}

/** tsx's compile cache (`tsx-<uid>`), which the dying hosts' tsx creates in the temp folder: not ours to clean. */
const isTsxCache = (name: string): boolean => /^tsx-\d+$/.test(name)

async function soakBash(): Promise<string[]> {
  // A temp folder of the soak's own, for everything it and its hosts create: counting new entries of the shared temp
  // folder would blame the soak for what other processes on the machine write there meanwhile.
  const outerTmp = process.env['TMPDIR']
  const soakTmp = mkdtempSync(join(tmpdir(), 'dsh-soak-tmp-'))
  process.env['TMPDIR'] = soakTmp
  try {
    return await soakBashIn(soakTmp)
  } finally {
    if (outerTmp === undefined) delete process.env['TMPDIR']
    else process.env['TMPDIR'] = outerTmp
    rmSync(soakTmp, { recursive: true, force: true })
  }
}

async function soakBashIn(soakTmp: string): Promise<string[]> {
  if (tmpdir() !== soakTmp) throw new Error(`the soak's temp folder is not in effect: tmpdir() is ${tmpdir()}`)
  const ctx = new Context()
  const executor = await ctx.plugin(LocalBashExecutor, { outputWindowBytes: 256, killGraceMs: 200, drainTimeoutMs: 100 })
  const bash = ctx.bash
  const pids = new Set<number>()
  const kinds = new Map<string, number>()
  const started = performance.now()
  for (let done = 0; done < COMMANDS; done += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, COMMANDS - done) }, async () => {
        const controller = new AbortController()
        const command = pick([
          'echo $$; echo out; echo err >&2',
          'echo $$; sleep 5 & echo $!; wait',
          'echo $$; head -c 4000 /dev/zero | tr "\\0" x; exit 3',
          'echo $$; trap "" TERM; sleep 5 & echo $!; wait',
          'echo $$; kill -9 $$',
          // Processes escaping the group: a setsid writer that outlives the shell and floods the inherited stdout
          // (pids on stderr: stdout is full of `y`), one killed while its parent is alive, set -m jobs in other
          // groups of the session, a setsid'd descendant under a subshell.
          `echo $$ >&2; setsid yes & echo $! >&2; ${UNTIL_ESCAPED}`,
          'echo $$ >&2; setsid yes & echo $! >&2; sleep 5',
          'echo $$; set -m; sleep 5 & echo $!; sleep 5 > /dev/null & echo $!',
          'echo $$; set -m; sleep 5 & echo $!; wait',
          'echo $$; (setsid sleep 5 & echo $!; wait) & wait',
        ])
        if (random() < 0.5) setTimeout(() => controller.abort(), Math.floor(random() * 30))
        const result = await bash.run({ command, signal: controller.signal, timeoutMs: 2_000 })
        const printed = `${result.stdout.head}${result.stdout.tail}\n${result.stderr.head}${result.stderr.tail}`
        for (const pid of printed.match(/^\d+$/gm) ?? []) pids.add(Number(pid))
        if (result.outputCutOff) kinds.set(`cut off (${result.outputCutOff})`, (kinds.get(`cut off (${result.outputCutOff})`) ?? 0) + 1)
        if (result.pid !== null) pids.add(result.pid)
        const kind = result.aborted ? 'aborted' : result.timedOut ? 'timed out' : result.signal ? `signal ${result.signal}` : `exit ${result.exitCode}`
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1)
      }),
    )
  }
  const elapsed = (performance.now() - started) / 1000
  const spill = (bash as unknown as { spillDirectory?: string | null }).spillDirectory ?? null
  await executor.dispose()
  const hosts = await soakDyingHosts()
  await sleep(50)
  // A setsid writer whose pipe was cut dies of SIGPIPE at its next write: give the kernel a moment.
  for (let wait = 0; wait < 40 && [...pids].some(isAlive); wait++) await sleep(50)
  const alive = [...pids].filter(isAlive)
  const hostsAlive = hosts.alive
  const tempLeft = readdirSync(soakTmp).filter((name) => !isTsxCache(name))
  const spillLeft = spill !== null && existsSync(spill)
  const problems: string[] = []
  if (alive.length > 0) problems.push(`${alive.length} processes alive: ${alive.slice(0, 10).join(', ')}`)
  if (tempLeft.length > 0) problems.push(`temp entries left: ${tempLeft.slice(0, 10).join(', ')}`)
  if (spillLeft) problems.push('spill directory left')
  if (hostsAlive.length > 0) problems.push(`${hostsAlive.length} processes of dying hosts alive: ${hostsAlive.slice(0, 10).join(', ')}`)
  if (hosts.spillsLeft > 0) problems.push(`${hosts.spillsLeft} spill directories of dying hosts left`)
  if (hosts.wrongExits.length > 0) problems.push(`hosts that did not die by their signal: ${hosts.wrongExits.join(', ')}`)
  return [
    `### 1,000 bash commands`,
    '',
    `${COMMANDS.toLocaleString('en')} commands through the local executor in ${elapsed.toFixed(1)} s (20 at a time): plain output, background children, 4 KB of output over a 256-byte window, a SIGTERM-trapping tree, self-kill, processes escaping the group (setsid writers flooding the inherited stdout past the shell's exit, set -m jobs, setsid'd descendants); half are aborted at a random moment. Then ${hosts.count} host processes (each running a command and a background task with background, set -m and setsid'd children, and spilling) killed by SIGINT, SIGTERM and SIGHUP.`,
    '',
    `| measure | value |`,
    `| --- | --- |`,
    `| pids recorded (shells and their children) | ${pids.size} |`,
    `| processes left alive | ${alive.length} |`,
    `| hosts killed by a signal / died by it | ${hosts.count} / ${hosts.count - hosts.wrongExits.length} |`,
    `| their processes recorded / left alive | ${hosts.pids.length} / ${hostsAlive.length} |`,
    `| their spill directories left | ${hosts.spillsLeft} |`,
    `| temp files left | ${tempLeft.length + (spillLeft ? 1 : 0)} |`,
    `| outcomes | ${[...kinds].sort().map(([kind, count]) => `${kind} ${count}`).join(', ')} |`,
    '',
    problems.length ? `Problems: ${problems.join('; ')}` : 'Leftovers: none.',
    ...problems.map((problem) => `!${problem}`),
  ]
}

const executeLines = await soakExecute()
const hostileLines = await soakHostile()
const concurrentLines = await soakConcurrent()
const bashLines = await soakBash()
const problems = [...executeLines, ...hostileLines, ...concurrentLines, ...bashLines].filter((line) => line.startsWith('!'))
writeResultsSection(
  'soak',
  [
    '## soak',
    '',
    `Run by \`pnpm soak\`. Machine: ${describeMachine()}. Date: ${new Date().toISOString().slice(0, 10)}.`,
    '',
    ...executeLines.filter((line) => !line.startsWith('!')),
    '',
    ...hostileLines.filter((line) => !line.startsWith('!')),
    '',
    ...concurrentLines.filter((line) => !line.startsWith('!')),
    '',
    ...bashLines.filter((line) => !line.startsWith('!')),
  ].join('\n'),
)
console.log(
  [...executeLines, '', ...hostileLines, '', ...concurrentLines, '', ...bashLines].filter((line) => !line.startsWith('!')).join('\n'),
)
if (problems.length > 0) {
  console.error(problems.join('\n'))
  process.exit(1)
}
process.exit(0)
