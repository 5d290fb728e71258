/** The signals that end a Node.js host by default, and that {@link onHostExit} cleans up on. */
export const HOST_SIGNALS: readonly NodeJS.Signals[] = Object.freeze(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)

/**
 * Marks the listeners of this module (of any copy of it, in any package version), so that they never count as the
 * host's own handlers. The second key is the one `@dsh/tool-bash` used before the mechanism moved here: a copy of
 * that older tool-bash in the same process and this module recognize each other's listeners, so the host still dies.
 */
const HOOK_MARKS = [Symbol.for('dsh.hostExitHook'), Symbol.for('dsh.tool-bash.hostExitHook')] as const

/** The synchronous cleanups registered now. */
const cleanups = new Set<() => void>()

/** Node's `process`, or `undefined` on a host without one (a browser, a worker without Node's globals). */
function hostProcess(): NodeJS.Process | undefined {
  const candidate = (globalThis as { process?: Partial<NodeJS.Process> }).process
  const usable = typeof candidate?.on === 'function' && typeof candidate.off === 'function' && typeof candidate.kill === 'function'
  return usable ? (candidate as NodeJS.Process) : undefined
}

function runCleanups(): void {
  for (const cleanup of cleanups) {
    try {
      cleanup()
    } catch {
      // A dying host cannot report it; the other cleanups still run.
    }
  }
}

function isOurs(listener: unknown): boolean {
  return typeof listener === 'function' && HOOK_MARKS.some((mark) => mark in listener)
}

/**
 * A host signal arrived. When nothing else listens for it, Node would have died by it: clean up synchronously, take
 * the hooks away and re-raise it, so the host still dies by that signal (its exit status is the signal's). When the
 * host has handlers of its own, it decides: nothing is cleaned up now, and the `exit` hook cleans up if it exits.
 */
function onSignal(signal: NodeJS.Signals): void {
  const host = hostProcess()
  if (host === undefined || host.listeners(signal).some((listener) => !isOurs(listener))) return
  runCleanups()
  uninstall()
  host.kill(host.pid, signal)
}

const marked = <T extends object>(listener: T): T => Object.assign(listener, Object.fromEntries(HOOK_MARKS.map((mark) => [mark, true])))

const exitListener = marked(() => runCleanups())
const signalListeners = new Map<NodeJS.Signals, (signal: NodeJS.Signals) => void>(HOST_SIGNALS.map((signal) => [signal, marked((received: NodeJS.Signals) => onSignal(received))]))

let installedOn: NodeJS.Process | undefined

function install(): void {
  if (installedOn !== undefined) return
  const host = hostProcess()
  if (host === undefined) return
  installedOn = host
  host.on('exit', exitListener)
  for (const [signal, listener] of signalListeners) host.on(signal, listener)
}

function uninstall(): void {
  const host = installedOn
  if (host === undefined) return
  installedOn = undefined
  host.off('exit', exitListener)
  for (const [signal, listener] of signalListeners) host.off(signal, listener)
}

/**
 * Registers `cleanup` to run when the host process ends: when it exits (normally, or by `process.exit`) and when it
 * dies by SIGINT, SIGTERM or SIGHUP ({@link HOST_SIGNALS}). The last-resort hook of everything a plugin started
 * outside the process (child process groups, temp files): `@dsh/tool-bash` kills its commands with it and
 * `@dsh/tools-mcp` the process groups of its stdio servers.
 *
 * - `cleanup` runs synchronously and must not wait for anything (a dying host runs no more callbacks): send
 *   SIGKILL, remove files with the `*Sync` calls. A cleanup that throws does not stop the others.
 * - On a signal the host has no handler of its own for (only these hooks listen), every cleanup runs, the hooks
 *   are removed and the signal is raised again: the host still dies by that signal, with the exit status a
 *   supervisor or a shell expects. A host with its own handler for the signal decides for itself: nothing is
 *   cleaned up then, and the cleanups run when it exits.
 * - A host killed by SIGKILL runs nothing: what it started outlives it.
 * - The hooks (one `exit` listener and one per signal, shared by every cleanup and by every copy of this package)
 *   are installed while at least one cleanup is registered and removed with the last one. Where there is no Node.js
 *   `process` (a browser), nothing is installed.
 *
 * @returns The function that unregisters `cleanup` (idempotent); call it when what it cleans up is gone.
 */
export function onHostExit(cleanup: () => void): () => void {
  const entry = (): void => cleanup() // each registration its own: the same function registered twice is two entries
  cleanups.add(entry)
  install()
  return () => {
    if (!cleanups.delete(entry)) return
    if (cleanups.size === 0) uninstall()
  }
}
