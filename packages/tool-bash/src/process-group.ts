import { closeSync, openSync, readSync } from 'node:fs'

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

/** True on Linux, where `/proc` tells sessions, groups and parents apart; elsewhere only the process group is tracked. */
export const hasProcFs = process.platform === 'linux'

/** One entry of `/proc/<pid>/stat`: what tracking needs. */
export interface ProcStat {
  /** The process id. */
  readonly pid: number
  /** The state letter (`R`, `S`, `Z`, …). */
  readonly state: string
  /** The parent's pid (1, or a subreaper's, once the parent died). */
  readonly ppid: number
  /** The process group id. */
  readonly pgrp: number
  /** The session id. */
  readonly sid: number
  /** Clock ticks after boot when the process started (tells a reused pid from the process that had it). */
  readonly startTime: number
}

const smallBuffer = Buffer.alloc(1024)

/** Reads a small file (`/proc` entries) into one reused buffer: open + read + close, cheap enough to do for every process. */
export function readSmallFile(path: string): string | undefined {
  try {
    const fd = openSync(path, 'r')
    try {
      const length = readSync(fd, smallBuffer, 0, smallBuffer.length, 0)
      return smallBuffer.toString('latin1', 0, length)
    } finally {
      closeSync(fd)
    }
  } catch {
    return undefined
  }
}

/** Reads `/proc/<pid>/stat`; `undefined` when the process is gone (or `/proc` cannot be read). */
export function readProcStat(pid: number): ProcStat | undefined {
  const text = readSmallFile(`/proc/${pid}/stat`)
  if (text === undefined) return undefined
  // The command name sits in parentheses and may itself hold spaces and parentheses: fields follow the last `)`.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ', 20)
  return {
    pid,
    state: fields[0] ?? '',
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    sid: Number(fields[3]),
    startTime: Number(fields[19]),
  }
}

/**
 * True when `pid` names a live process. A zombie (exited, not yet reaped, state `Z`/`X`) is dead: when PID 1 does
 * not reap orphans (some containers and VMs), zombies linger but run nothing.
 */
export function isProcessAlive(pid: number): boolean {
  if (hasProcFs) {
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
