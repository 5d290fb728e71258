import { closeSync, openSync, readSync, readdirSync } from 'node:fs'

/**
 * Sends `signal` to every process of the group `pgid`. Returns false when the group no longer exists (ESRCH) or
 * none of its processes may be signalled (EPERM).
 */
export function signalProcessGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal)
    return true
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ESRCH' || code === 'EPERM') return false
    throw error
  }
}

interface ProcStat {
  state: string
  pgrp: number
}

const statBuffer = Buffer.alloc(1024)

/** Reads `/proc/<pid>/stat`: the state letter and the process group. `undefined` when the process is gone. */
function readProcStat(pid: number | string): ProcStat | undefined {
  // open + read + close into one reused buffer: a group check may read every entry of /proc, so this stays cheap.
  let length: number
  try {
    const fd = openSync(`/proc/${pid}/stat`, 'r')
    try {
      length = readSync(fd, statBuffer, 0, statBuffer.length, 0)
    } finally {
      closeSync(fd)
    }
  } catch {
    return undefined
  }
  const text = statBuffer.toString('latin1', 0, length)
  // The command name sits in parentheses and may itself hold spaces and parentheses: fields follow the last `)`.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ', 3)
  return { state: fields[0] ?? '', pgrp: Number(fields[2]) }
}

const hasProc = process.platform === 'linux'

/**
 * True when `pid` names a live process. A zombie (exited, not yet reaped, state `Z`/`X`) is dead: when PID 1 does
 * not reap orphans (some containers and VMs), zombies linger but run nothing.
 */
export function isProcessAlive(pid: number): boolean {
  if (hasProc) {
    const stat = readProcStat(pid)
    return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X'
  }
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Watches one process group for live members. `kill(-pgid, 0)` answers "none" cheaply and exactly when the group
 * is empty, but it counts zombies (exited, unreaped processes) as members, and where PID 1 does not reap orphans
 * (some containers and VMs) they never go away. {@link ProcessGroupWatch.hasLiveMembers} with `thorough` checks a
 * "yes" against `/proc` on Linux, remembering the live members it found so that later checks read only their
 * entries until they are all gone.
 */
export class ProcessGroupWatch {
  readonly pgid: number
  private members: number[] = []

  constructor(pgid: number) {
    this.pgid = pgid
  }

  /**
   * False when no process of the group is alive. Without `thorough`, only an empty group counts as "none"; with
   * it, a group of zombies does too (Linux; elsewhere zombies are reaped promptly and the cheap answer stands).
   */
  hasLiveMembers(thorough = true): boolean {
    if (!signalProcessGroup(this.pgid, 0)) return false
    if (!thorough || !hasProc) return true
    if (this.members.some((pid) => this.isLiveMember(pid))) return true
    this.members = this.scan()
    return this.members.length > 0
  }

  private isLiveMember(pid: number): boolean {
    const stat = readProcStat(pid)
    return stat !== undefined && stat.pgrp === this.pgid && stat.state !== 'Z' && stat.state !== 'X'
  }

  private scan(): number[] {
    const live: number[] = []
    let entries: string[]
    try {
      entries = readdirSync('/proc')
    } catch {
      return [this.pgid]
    }
    for (const entry of entries) {
      const code = entry.charCodeAt(0)
      if (code < 48 || code > 57) continue
      const pid = Number(entry)
      if (this.isLiveMember(pid)) live.push(pid)
    }
    return live
  }
}
