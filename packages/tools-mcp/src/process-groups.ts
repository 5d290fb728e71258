import { onHostExit } from '@dsh/tools-registry'

/** Live process groups of stdio servers, killed synchronously if the host exits or dies with them still running. */
const liveGroups = new Set<number>()
let releaseHostHooks: (() => void) | undefined

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
 * Tracks a group for the host-exit sweep ({@link onHostExit} of `@dsh/tools-registry`, shared with tool-bash's
 * commands): the group is SIGKILLed, synchronously, when the host exits (normally or by `process.exit`) or dies by
 * SIGINT, SIGTERM or SIGHUP that it has no handler of its own for (the signal is then raised again, so the host still
 * dies by it). A host killed by SIGKILL cannot clean up: its server groups then outlive it (the trade-off of
 * `detached` groups, documented in the reference page). The hooks are held while any group is tracked.
 */
export function trackGroup(pgid: number): () => void {
  liveGroups.add(pgid)
  releaseHostHooks ??= onHostExit(killAll)
  return () => {
    liveGroups.delete(pgid)
    if (liveGroups.size === 0 && releaseHostHooks !== undefined) {
      releaseHostHooks()
      releaseHostHooks = undefined
    }
  }
}

/** The process groups tracked now (for the tests' leak checks). */
export function trackedGroups(): number[] {
  return [...liveGroups]
}
