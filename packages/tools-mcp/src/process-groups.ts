/** Live process groups of stdio servers, killed synchronously if the host exits with them still running. */
const liveGroups = new Set<number>()
let hooked = false

function killAll(): void {
  for (const pgid of liveGroups) signalGroup(pgid, 'SIGKILL')
  liveGroups.clear()
}

/**
 * Sends `signal` to the process group `pgid` (POSIX) or kills the tree with `taskkill` (Windows is not supported
 * for groups: the direct child only). False when the group no longer exists.
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(process.platform === 'win32' ? pgid : -pgid, signal)
    return true
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ESRCH' || code === 'EPERM') return false
    throw error
  }
}

/** True while any process of the group `pgid` is alive. */
export function groupAlive(pgid: number): boolean {
  return signalGroup(pgid, 0)
}

/**
 * Tracks a group for the host-exit sweep. An `exit` hook runs synchronously: the group is SIGKILLed when the host
 * exits normally. A host killed by SIGKILL cannot clean up: its server groups then outlive it (the trade-off of
 * `detached` groups, documented in the reference page).
 */
export function trackGroup(pgid: number): () => void {
  if (!hooked) {
    hooked = true
    process.on('exit', killAll)
  }
  liveGroups.add(pgid)
  return () => {
    liveGroups.delete(pgid)
    if (liveGroups.size === 0 && hooked) {
      hooked = false
      process.off('exit', killAll)
    }
  }
}

/** The process groups tracked now (for the tests' leak checks). */
export function trackedGroups(): number[] {
  return [...liveGroups]
}
