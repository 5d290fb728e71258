// Leaks, zero tolerance, and honest failure: what a stopped command left (setsid, double-fork, TERM-trapping
// children) is gone; after disposal no labelled container is left; a SIGKILL of the host takes the container
// within 2 s; a container that dies under a command ends the call with a note; the start-up sweep removes the
// containers of dead owners. On each engine; no engine helper of a removed container (podman's conmon, Docker's
// containerd-shim) is left either.
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'esbuild'
import { Context, type Fiber } from 'cordis'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { ContainerBashExecutor } from './container-bash-executor.js'
import { OWNER_LABEL, SESSION_LABEL } from './container-session.js'
import { describeOnEngines, engineHelpers, processesWith, type TestEngine } from './test-support.js'

const base = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-ct-leaks-')))
afterAll(() => rmSync(base, { recursive: true, force: true }))
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
let counter = 0
const unique = (): string => `9${(counter += 1)}${process.pid % 991}`

/** A command whose children try every way out of the command's tree: setsid, a double fork, a TERM trap. */
const escaping = (mark: string): string =>
  `setsid sleep ${mark} & (setsid bash -c 'sleep ${mark} & :' &) ; bash -c 'trap "" TERM; sleep ${mark}' & echo started; sleep ${mark}`

async function labelled(engine: TestEngine, label: string, value: string): Promise<string[]> {
  const filters = encodeURIComponent(JSON.stringify({ label: [`${label}=${value}`] }))
  const list = await engine.client().call<{ Id: string }[]>('GET', `/containers/json?all=1&filters=${filters}`)
  return list.map((item) => item.Id)
}

/** Waits (up to 2 s) until no helper process of the engine keeps container `id`; returns those still there. */
async function helpersLeft(engine: TestEngine, id: string): Promise<number[]> {
  const until = Date.now() + 2_000
  let left = engineHelpers(engine, id)
  while (left.length > 0 && Date.now() < until) {
    await sleep(50)
    left = engineHelpers(engine, id)
  }
  return left
}

describeOnEngines((engine) => {
  describe('what a stopped command left is gone', () => {
    let ctx: Context
    let fiber: Fiber
    let executor: ContainerBashExecutor
    beforeAll(async () => {
      ctx = new Context()
      fiber = await ctx.plugin(ContainerBashExecutor, { ...engine.options(), cwd: base, killGraceMs: 300 })
      executor = ctx.bash as ContainerBashExecutor
    })
    afterAll(() => fiber?.dispose())

    const onlyAgentLeft = async (): Promise<void> => {
      const listing = await executor.run({ command: 'ps -eo pid=,ppid=,args=' })
      const lines = listing.stdout.head.trim().split('\n').map((line) => line.trim())
      // pid 1 (the engine's init), the agent, and this listing's own shell and ps.
      expect(lines[0]).toMatch(new RegExp(`^1\\s+0\\s+${engine.init} `))
      expect(lines.slice(1).filter((line) => !/^\d+\s+1\s+\S*node -e|^\d+\s+\d+\s+(\/usr\/bin\/bash --noprofile --norc -c ps|ps -eo)/.test(line))).toEqual([])
      expect(lines.length).toBeLessThanOrEqual(4)
    }

    it('after a timeout', async () => {
      const mark = unique()
      const result = await executor.run({ command: escaping(mark), timeoutMs: 700 })
      expect(result.timedOut).toBe(true)
      expect(processesWith(mark)).toEqual([])
      await onlyAgentLeft()
    })

    it('after an abort', async () => {
      const mark = unique()
      const controller = new AbortController()
      const running = executor.run({ command: escaping(mark), signal: controller.signal })
      for (let attempt = 0; attempt < 100 && processesWith(mark).length < 4; attempt += 1) await sleep(50)
      controller.abort()
      expect((await running).aborted).toBe(true)
      expect(processesWith(mark)).toEqual([])
      await onlyAgentLeft()
    })

    it('after a kill of a background task', async () => {
      const mark = unique()
      const task = await executor.start({ command: escaping(mark) })
      for (let attempt = 0; attempt < 100 && processesWith(mark).length < 4; attempt += 1) await sleep(50)
      const outcome = await task.kill()
      expect(outcome.status === 'completed' && outcome.result.stopReason).toBe('kill')
      expect(processesWith(mark)).toEqual([])
      await onlyAgentLeft()
    })

    it('the local executor (the control) leaves the escaped ones running', async () => {
      const { LocalBashExecutor } = await import('@dsh/tool-bash')
      const local = new Context()
      await local.plugin(LocalBashExecutor, { cwd: base, killGraceMs: 300 })
      const mark = unique()
      await local.bash.run({ command: escaping(mark), timeoutMs: 700 })
      const left = processesWith(mark)
      for (const pid of left) process.kill(pid, 'SIGKILL')
      await local.registry.delete(LocalBashExecutor)
      expect(left.length).toBeGreaterThan(0)
    })
  })

  it('after disposal no labelled container is left', async () => {
    const ctx = new Context()
    const fiber = await ctx.plugin(ContainerBashExecutor, { ...engine.options(), cwd: base })
    const executor = ctx.bash as ContainerBashExecutor
    const id = executor.containerId
    expect((await executor.run({ command: 'true' })).executorMeta).toMatchObject({ container: id.slice(0, 12), engine: engine.kind })
    const inspected = await engine.client().call<{ Config: { Labels: Record<string, string> } }>('GET', `/containers/${id}/json`)
    const session = inspected.Config.Labels[SESSION_LABEL] ?? ''
    expect(inspected.Config.Labels[OWNER_LABEL]).toBe(`${hostname()}/${process.pid}`)
    expect(await labelled(engine, SESSION_LABEL, session)).toHaveLength(1)
    expect(engineHelpers(engine, id)).toHaveLength(1)
    await fiber.dispose()
    expect(await labelled(engine, SESSION_LABEL, session)).toEqual([])
    expect(await helpersLeft(engine, id)).toEqual([])
  })

  it('a container that dies under a command ends the call at once, with a note', async () => {
    const ctx = new Context()
    const fiber = await ctx.plugin(ContainerBashExecutor, { ...engine.options(), cwd: base })
    const executor = ctx.bash as ContainerBashExecutor
    const running = executor.run({ command: 'sleep 60' })
    await sleep(300)
    const started = Date.now()
    await engine.client().call('DELETE', `/containers/${executor.containerId}?force=1`)
    const result = await running
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(result.note).toMatch(/before the command finished; its output and exit status are unknown/)
    await expect(executor.run({ command: 'true' })).rejects.toMatchObject({ code: 'BASH_SPAWN_FAILED' })
    await fiber.dispose()
  })

  it('a SIGKILL of the host takes the container (and what ran in it) within 2 s', async () => {
    mkdirSync(join(import.meta.dirname, '..', '.tmp'), { recursive: true })
    const script = join(import.meta.dirname, '..', '.tmp', `owner-${process.pid}.mjs`)
    onTestFinished(() => rmSync(script, { force: true }))
    await build({
      stdin: {
        contents: `import { Context } from 'cordis'
import { ContainerBashExecutor } from './container-bash-executor.ts'
const ctx = new Context()
await ctx.plugin(ContainerBashExecutor, JSON.parse(process.argv[2]))
await ctx.bash.start({ command: 'setsid sleep ' + process.argv[3] + ' & sleep ' + process.argv[3] })
console.log(ctx.bash.containerId)
setInterval(() => {}, 1000)`,
        resolveDir: import.meta.dirname,
        loader: 'ts',
      },
      outfile: script,
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      logLevel: 'silent',
    })
    const mark = unique()
    const owner = spawn(process.execPath, [script, JSON.stringify({ ...engine.options(), cwd: base }), mark], {
      stdio: ['ignore', 'pipe', 'inherit'],
      cwd: join(import.meta.dirname, '..'),
    })
    const id = await new Promise<string>((resolve, reject) => {
      owner.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()))
      owner.once('exit', (code) => reject(new Error(`the owner exited (${code})`)))
    })
    for (let attempt = 0; attempt < 100 && processesWith(mark).length < 2; attempt += 1) await sleep(50)
    expect(processesWith(mark).length).toBeGreaterThanOrEqual(2)
    const session = await engine.client().call<{ Config: { Labels: Record<string, string> } }>('GET', `/containers/${id}/json`)
    expect(engineHelpers(engine, id)).toHaveLength(1)
    owner.kill('SIGKILL')
    const killed = Date.now()
    // An executor loading right away: its start-up sweep gives the dying container its grace to go with its keeper,
    // so it neither removes nor reports it.
    const early = new Context()
    const earlyLoad = Promise.resolve(early.plugin(ContainerBashExecutor, { ...engine.options(), cwd: base }))
    let left = [id]
    while (left.length > 0 && Date.now() - killed < 2_000) {
      await sleep(50)
      left = [...(await labelled(engine, SESSION_LABEL, session.Config.Labels[SESSION_LABEL] ?? '')), ...engineHelpers(engine, id).map(String)]
    }
    expect(left).toEqual([])
    expect(processesWith(mark)).toEqual([])
    const earlyFiber = await earlyLoad
    expect((early.bash as ContainerBashExecutor).swept.map((item) => item.id)).not.toContain(id)
    await earlyFiber.dispose()
    // The dead owner could not remove its private directories (on podman: the seccomp profile podman reads from a
    // file, and the execute-only copy of node the agent runs from; Docker takes the profile inline and, over TCP, runs
    // the image's node, so there is none); the next executor's start-up sweep does.
    const privateDirs = (): string[] => readdirSync(tmpdir()).filter((name) => name.startsWith(`dsh-container-${owner.pid}-`))
    // The early executor's sweep, or another test file's loading meanwhile, may have removed them already.
    expect(privateDirs().length).toBeLessThanOrEqual(engine.kind === 'podman' ? 2 : 0)
    const next = new Context()
    const nextFiber = await next.plugin(ContainerBashExecutor, { ...engine.options(), cwd: base })
    await nextFiber.dispose()
    expect(privateDirs()).toEqual([])
  })
})
