// The agent in the session container (bundled into dist/container-agent.cjs and sent over the container's stdin at
// start). It runs each command with tool-bash's local executor, inside the container's pid namespace: its own
// session and process group, its descendants tracked through /proc, output windowed and spilled inside the
// container. After a command was stopped (timeout, abort, kill, disposal) it also kills whatever that command left
// in the container outside every running command (setsid and double-forked children reparented to the init). When
// its stdin ends (the host process died or closed the session) it stops everything and exits, and the container,
// created with AutoRemove, goes with it.
import { readdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { createServer, type Server } from 'node:net'
import { Context } from 'cordis'
import { LocalBashExecutor, type BashExecutor, type BashTask } from '@dsh/tool-bash'
import type { AgentError, AgentMessage, ContainerFacts, HostMessage } from '../agent-protocol.js'
import { TUNNEL_MAX_CONNECTIONS, Tunnels, isTunnelMessage } from '../net-tunnel.js'

const send = (message: AgentMessage): void => {
  process.stdout.write(`${JSON.stringify(message)}\n`)
}

const asError = (error: unknown): AgentError => {
  const value = error as { name?: unknown; message?: unknown; field?: unknown; cwd?: unknown }
  return {
    name: typeof value?.name === 'string' ? value.name : 'Error',
    message: typeof value?.message === 'string' ? value.message : String(error),
    ...(typeof value?.field === 'string' ? { field: value.field } : {}),
    ...(typeof value?.cwd === 'string' ? { cwd: value.cwd } : {}),
  }
}

const readText = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return null
  }
}

/** A cgroup limit file's value: `null` for `max`, a v1 "unlimited" near 2^63, or an unreadable file. */
const limitOf = (...paths: string[]): number | null => {
  for (const path of paths) {
    const text = readText(path)?.trim()
    if (text === undefined || text === null) continue
    if (text === 'max') return null
    const value = Number(text)
    if (!Number.isFinite(value) || value >= 2 ** 62) return null
    return value
  }
  return null
}

/** The CFS quota as CPUs: v2 `cpu.max` ("quota period" or "max period"), v1 `cpu.cfs_quota_us` (-1: none) / `cpu.cfs_period_us`. */
function cpuQuota(): number | null {
  const v2 = readText('/sys/fs/cgroup/cpu.max')?.trim().split(/\s+/)
  if (v2 !== undefined) return v2[0] === 'max' || v2.length !== 2 ? null : Number(v2[0]) / Number(v2[1])
  for (const directory of ['/sys/fs/cgroup/cpu', '/sys/fs/cgroup/cpu,cpuacct']) {
    const quota = Number(readText(`${directory}/cpu.cfs_quota_us`)?.trim() ?? 'NaN')
    const period = Number(readText(`${directory}/cpu.cfs_period_us`)?.trim() ?? 'NaN')
    if (Number.isFinite(quota) && Number.isFinite(period) && period > 0) return quota <= 0 ? null : quota / period
  }
  return null
}

function facts(probeUserNamespace: boolean): ContainerFacts {
  const status = readText('/proc/self/status') ?? ''
  const field = (name: string): string => new RegExp(`^${name}:\\s*(\\S+)`, 'm').exec(status)?.[1] ?? ''
  let interfaces: string[] = []
  try {
    interfaces = readdirSync('/sys/class/net').filter((name) => name !== 'lo')
  } catch {
    interfaces = ['(unreadable /sys/class/net)']
  }
  const memory = limitOf('/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes')
  let memorySwap = limitOf('/sys/fs/cgroup/memory/memory.memsw.limit_in_bytes')
  const swapV2 = readText('/sys/fs/cgroup/memory.swap.max')
  if (swapV2 !== null && memory !== null) {
    const swap = limitOf('/sys/fs/cgroup/memory.swap.max')
    memorySwap = swap === null ? null : memory + swap
  }
  const nofileLine = /^Max open files\s+(\S+)/m.exec(readText('/proc/self/limits') ?? '')?.[1]
  let readOnlyRoot = false
  try {
    writeFileSync('/.dsh-write-probe', '')
    rmSync('/.dsh-write-probe', { force: true })
  } catch (error) {
    readOnlyRoot = (error as NodeJS.ErrnoException).code === 'EROFS'
  }
  let userNamespace: boolean | null = null
  if (probeUserNamespace) {
    const probe = spawnSync('unshare', ['-U', 'true'], { stdio: 'ignore', timeout: 5_000 })
    userNamespace = probe.error === undefined ? probe.status === 0 : null
  }
  // A child with the agent's user and capabilities, as a command is: can it read the agent's /proc entries?
  const inspect = spawnSync('cat', [`/proc/${process.pid}/environ`], { stdio: 'ignore', timeout: 5_000 })
  return {
    agentInspectable: inspect.error === undefined ? inspect.status === 0 : null,
    capEff: field('CapEff'),
    noNewPrivs: field('NoNewPrivs') === '1',
    seccomp: Number(field('Seccomp') || '0'),
    interfaces,
    memoryBytes: memory,
    memorySwapBytes: memorySwap,
    pidsLimit: limitOf('/sys/fs/cgroup/pids.max', '/sys/fs/cgroup/pids/pids.max'),
    cpus: cpuQuota(),
    nofile: nofileLine === undefined || nofileLine === 'unlimited' ? null : Number(nofileLine),
    readOnlyRoot,
    userNamespace,
    agentPid: process.pid,
    node: process.version,
  }
}

interface ProcessEntry {
  readonly pid: number
  readonly ppid: number
  readonly pgid: number
  readonly sid: number
  readonly zombie: boolean
}

function processes(): ProcessEntry[] {
  const entries: ProcessEntry[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const stat = readText(`/proc/${name}/stat`)
    if (stat === null) continue
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    entries.push({ pid: Number(name), ppid: Number(fields[1]), pgid: Number(fields[2]), sid: Number(fields[3]), zombie: fields[0] === 'Z' })
  }
  return entries
}

/**
 * Kills every process of the container that belongs to no running command: not the init (1), not the agent, not
 * a descendant of the agent, and not in the session or process group of a command shell the agent runs. Repeats
 * until none is left (a process may fork while it is being killed). Returns the pids it killed.
 */
function sweep(): number[] {
  const killed = new Set<number>()
  for (let round = 0; round < 50; round += 1) {
    const all = processes()
    const children = new Map<number, number[]>()
    for (const entry of all) children.set(entry.ppid, [...(children.get(entry.ppid) ?? []), entry.pid])
    const keep = new Set<number>([1, process.pid])
    const shells = children.get(process.pid) ?? []
    const stack = [...shells]
    while (stack.length > 0) {
      const pid = stack.pop() as number
      if (keep.has(pid)) continue
      keep.add(pid)
      stack.push(...(children.get(pid) ?? []))
    }
    const groups = new Set(shells)
    const left = all.filter((entry) => !entry.zombie && !keep.has(entry.pid) && !groups.has(entry.pgid) && !groups.has(entry.sid))
    if (left.length === 0) break
    for (const entry of left) {
      try {
        process.kill(entry.pid, 'SIGKILL')
        killed.add(entry.pid)
      } catch {
        // gone already
      }
    }
    spawnSync('sleep', ['0.01'])
  }
  return [...killed]
}

async function main(input: Buffer): Promise<void> {
  let buffer = input
  const queue: HostMessage[] = []
  let wake: (() => void) | null = null
  let ended = false
  const take = (chunk: Buffer): void => {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk])
    let newline = buffer.indexOf(10)
    while (newline >= 0) {
      const line = buffer.subarray(0, newline).toString('utf8')
      buffer = buffer.subarray(newline + 1)
      if (line.trim() !== '') queue.push(JSON.parse(line) as HostMessage)
      newline = buffer.indexOf(10)
    }
    wake?.()
  }
  const next = async (): Promise<HostMessage | null> => {
    while (queue.length === 0) {
      if (ended) return null
      await new Promise<void>((resolve) => (wake = resolve))
      wake = null
    }
    return queue.shift() as HostMessage
  }
  process.stdin.on('data', take)
  process.stdin.on('end', () => {
    ended = true
    wake?.()
  })
  process.stdin.resume()
  take(Buffer.alloc(0))

  const init = await next()
  if (init === null || init.op !== 'init') return
  const ctx = new Context()
  let bash: BashExecutor
  let fiber: Awaited<ReturnType<Context['plugin']>>
  try {
    fiber = await ctx.plugin(LocalBashExecutor, init.config)
    bash = ctx.bash
  } catch (error) {
    send({ op: 'fatal', message: asError(error).message })
    return
  }
  // The network allow list: every connection to 127.0.0.1:proxyPort is carried to the host's proxy.
  const tunnels = new Tunnels(send)
  let proxyServer: Server | null = null
  const proxyPort = init.proxyPort
  if (typeof proxyPort === 'number') {
    let conn = 0
    const server = createServer((socket) => {
      conn += 1
      send({ op: 'net-open', conn })
      tunnels.add(conn, socket)
    })
    server.maxConnections = TUNNEL_MAX_CONNECTIONS
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen({ host: '127.0.0.1', port: proxyPort }, () => resolve())
      })
    } catch (error) {
      send({ op: 'fatal', message: `the network bridge cannot listen on 127.0.0.1:${proxyPort}: ${asError(error).message}` })
      await fiber.dispose()
      return
    }
    proxyServer = server
  }
  send({ op: 'ready', facts: facts(init.probeUserNamespace) })

  const tasks = new Map<number, BashTask>()
  const aborts = new Map<number, AbortController>()
  const afterStop = (): void => {
    const pids = sweep()
    if (pids.length > 0) send({ op: 'swept', pids })
  }

  for (let message = await next(); message !== null && message.op !== 'exit'; message = await next()) {
    const current = message
    if (isTunnelMessage(current)) {
      tunnels.receive(current)
    } else if (current.op === 'resolve') {
      bash.resolve(current.request, { background: current.background }).then(
        (value) => send({ op: 'resolved', id: current.id, value: { command: value.command, cwd: value.cwd, timeoutMs: value.timeoutMs } }),
        (error: unknown) => send({ op: 'resolved', id: current.id, error: asError(error) }),
      )
    } else if (current.op === 'run') {
      const controller = new AbortController()
      aborts.set(current.id, controller)
      bash.start({ ...current.request, signal: controller.signal }).then(
        (task) => {
          tasks.set(current.id, task)
          send({ op: 'started', id: current.id, pid: task.pid, startedAt: task.startedAt })
          if (current.background) {
            task.onOutput?.((stream, chunk) => send({ op: 'out', id: current.id, stream, data: Buffer.from(chunk).toString('base64') }))
          }
          task.onDone((outcome) => {
            tasks.delete(current.id)
            aborts.delete(current.id)
            if (outcome.status === 'completed') {
              if (outcome.result.stopReason !== null) afterStop()
              send({ op: 'done', id: current.id, result: outcome.result })
            } else {
              send({ op: 'done', id: current.id, error: asError(outcome.error) })
            }
          })
        },
        (error: unknown) => {
          aborts.delete(current.id)
          send({ op: 'done', id: current.id, error: asError(error) })
        },
      )
    } else if (current.op === 'abort') {
      aborts.get(current.id)?.abort()
    } else if (current.op === 'kill') {
      void tasks.get(current.id)?.kill()
    }
  }
  proxyServer?.close()
  tunnels.destroyAll()
  await fiber.dispose()
  await new Promise((resolve) => setTimeout(resolve, 0))
  afterStop()
  process.stdout.write('', () => process.exit(0))
}

const rest = (globalThis as { __dshAgentInput?: Buffer }).__dshAgentInput ?? Buffer.alloc(0)
main(rest).catch((error: unknown) => {
  send({ op: 'fatal', message: asError(error).message })
  process.exitCode = 1
})
