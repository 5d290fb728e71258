import { closeSync, openSync, readSync, readdirSync } from 'node:fs'
import { hasProcFs, readProcStat, readSmallFile, signalProcessGroup, type ProcStat } from './process-group.js'

function isLive(stat: ProcStat): boolean {
  return stat.state !== 'Z' && stat.state !== 'X'
}

const procStatBuffer = Buffer.alloc(16_384)

/** Forks since boot (`processes` of `/proc/stat`), or `undefined`; with the last pid handed out it bounds pid reuse. */
export function readForkCount(): number | undefined {
  if (!hasProcFs) return undefined
  let text: string
  try {
    const fd = openSync('/proc/stat', 'r')
    try {
      const length = readSync(fd, procStatBuffer, 0, procStatBuffer.length, 0)
      text = procStatBuffer.toString('latin1', 0, length)
    } finally {
      closeSync(fd)
    }
  } catch {
    return undefined
  }
  const match = /\nprocesses (\d+)/.exec(text)
  return match === null ? undefined : Number(match[1])
}

/** From `/proc/loadavg`: the last pid the kernel handed out, and how many threads exist. */
function readLoad(): { lastPid: number; threads: number } | undefined {
  const fields = readSmallFile('/proc/loadavg')?.trim().split(' ')
  const lastPid = Number(fields?.[4])
  const threads = Number(fields?.[3]?.split('/')[1])
  return Number.isSafeInteger(lastPid) && Number.isSafeInteger(threads) ? { lastPid, threads } : undefined
}

let pidMax: number | undefined
function readPidMax(): number {
  if (pidMax === undefined) {
    const value = Number(readSmallFile('/proc/sys/kernel/pid_max')?.trim())
    pidMax = Number.isSafeInteger(value) && value > 0 ? value : 4_194_304
  }
  return pidMax
}

/** Pids below this are never handed out again after the kernel's pid counter wraps. */
const PID_WRAP_FLOOR = 300
/** Up to this many pids handed out since the shell's are probed one by one instead of listing /proc. */
const PROBE_LIMIT = 128

/**
 * What one command started, by more than its process group: its session (commands are session leaders, so the
 * session id is the shell's pid — `set -m` jobs live in other groups of it), and every descendant of the shell or of
 * a session or group member, found through the parent pids (which catches processes that called `setsid` while
 * their parent is still theirs). Read from `/proc` only when asked (when the command ends or is stopped), never
 * on a hot path; where `/proc` is missing (not Linux) it degrades to the process group alone.
 *
 * What it cannot see: a process that left the session and whose parent is gone before a scan (re-parented to
 * init, such as a `setsid` child of a shell that already exited, or a double fork): nothing in `/proc` ties it to
 * the command any more. The sandboxed executor (a pid namespace) closes that.
 */
export class CommandProcesses {
  /** The shell's pid: its process group id and session id. */
  readonly pid: number
  private readonly shellStart: number | undefined
  private readonly forksAtStart: number | undefined
  /** Live processes found by earlier scans, with their start times. */
  private readonly known = new Map<number, number>()

  /**
   * @param pid - the shell's pid, right after spawning it
   * @param forksAtStart - {@link readForkCount} read before the spawn
   */
  constructor(pid: number, forksAtStart: number | undefined) {
    this.pid = pid
    this.forksAtStart = forksAtStart
    this.shellStart = hasProcFs ? readProcStat(pid)?.startTime : undefined
  }

  /**
   * The live processes of the command, by pid (zombies do not count). Without `/proc`: the group's id when
   * `kill(-pgid, 0)` reaches a member, else nothing.
   */
  live(): number[] {
    if (!hasProcFs || this.shellStart === undefined) return signalProcessGroup(this.pid, 0) ? [this.pid] : []
    const candidates = this.candidates()
    if (candidates === undefined) return signalProcessGroup(this.pid, 0) ? [this.pid] : []
    const stats: ProcStat[] = []
    for (const pid of candidates) {
      const stat = readProcStat(pid)
      if (stat !== undefined && stat.startTime >= this.shellStart) stats.push(stat)
    }
    // A process holding the shell's pid that is not the shell means the pid was reused: its group and session
    // (and its children) are someone else's.
    const reused = stats.some((stat) => stat.pid === this.pid && stat.startTime !== this.shellStart)
    const owned = new Set<number>()
    const children = new Map<number, ProcStat[]>()
    const byPid = new Map<number, ProcStat>()
    for (const stat of stats) {
      byPid.set(stat.pid, stat)
      if (!reused && (stat.pid === this.pid || stat.pgrp === this.pid || stat.sid === this.pid)) owned.add(stat.pid)
      const siblings = children.get(stat.ppid)
      if (siblings === undefined) children.set(stat.ppid, [stat])
      else siblings.push(stat)
    }
    // Found once, tracked until gone: a process whose parent died since (re-parented) is still the command's.
    for (const [pid, startTime] of this.known) {
      const stat = byPid.get(pid) ?? readProcStat(pid)
      if (stat !== undefined && stat.startTime === startTime && isLive(stat)) {
        byPid.set(pid, stat)
        owned.add(pid)
      } else {
        this.known.delete(pid)
      }
    }
    const queue = [...owned]
    for (let index = 0; index < queue.length; index++) {
      for (const child of children.get(queue[index] as number) ?? []) {
        if (!owned.has(child.pid)) {
          owned.add(child.pid)
          queue.push(child.pid)
        }
      }
    }
    const live: number[] = []
    for (const pid of owned) {
      const stat = byPid.get(pid)
      if (stat === undefined || !isLive(stat)) continue
      live.push(pid)
      this.known.set(pid, stat.startTime)
    }
    return live
  }

  /**
   * Sends `signal` to every live process of the command (a fresh scan, taken before any of them is signalled) and to
   * its process group, synchronously.
   * Returns how many processes it found alive.
   */
  signal(signal: NodeJS.Signals): number {
    // Scan first: once a parent dies, its children are re-parented and no longer found through it.
    const live = this.live()
    signalProcessGroup(this.pid, signal)
    for (const pid of live) {
      try {
        process.kill(pid, signal)
      } catch {
        // Gone meanwhile, or not ours to signal.
      }
    }
    return live.length
  }

  /**
   * The pids that may belong to the command: those handed out since the shell's (probed one by one when there are
   * few, so a short command's end costs a handful of reads and no listing of /proc), or every process in /proc when
   * the pid counter may have wrapped since the spawn. `undefined` when /proc cannot be listed.
   */
  private candidates(): Iterable<number> | undefined {
    const newest = this.newestPidIfNoWrap()
    if (newest !== undefined && newest - this.pid <= PROBE_LIMIT) {
      const range: number[] = []
      for (let pid = this.pid; pid <= newest; pid++) range.push(pid)
      return range
    }
    let entries: string[]
    try {
      entries = readdirSync('/proc')
    } catch {
      return undefined
    }
    const pids: number[] = []
    for (const entry of entries) {
      const code = entry.charCodeAt(0)
      if (code < 48 || code > 57) continue
      const pid = Number(entry)
      // Whatever the command started got a pid after the shell's, unless the pid counter wrapped meanwhile.
      if (newest === undefined || pid >= this.pid) pids.push(pid)
    }
    return pids
  }

  /**
   * The last pid handed out, when every pid handed out since the spawn lies between the shell's and it: the pid
   * counter has not wrapped. A wrap needs at least (pid_max − shell pid) + (last pid − 300) steps of the counter:
   * allocations since the spawn (the fork count of /proc/stat) plus pids skipped because they were in use (at most
   * the threads alive, the second number of /proc/loadavg's fourth field).
   */
  private newestPidIfNoWrap(): number | undefined {
    const load = readLoad()
    const forks = readForkCount()
    if (load === undefined || forks === undefined || this.forksAtStart === undefined || load.lastPid < this.pid) {
      return undefined
    }
    const steps = forks - this.forksAtStart + load.threads
    return steps < readPidMax() - this.pid + (load.lastPid - PID_WRAP_FLOOR) ? load.lastPid : undefined
  }
}
