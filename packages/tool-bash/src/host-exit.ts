/** The signals that end a host by default and that the host's death must take every running command with. */
export const HOST_SIGNALS: readonly NodeJS.Signals[] = Object.freeze(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)

/** Marks this package's listeners (of any copy of it), so that they do not count as the host's own handlers. */
const HOOK_MARK = Symbol.for('dsh.tool-bash.hostExitHook')

/** Synchronous cleanups of the live executors: kill every command's processes, remove every spill directory. */
const cleanups = new Set<() => void>()

function runCleanups(): void {
  for (const cleanup of cleanups) {
    try {
      cleanup()
    } catch {
      // A dying host cannot report it; the other cleanups still run.
    }
  }
}

function onExit(): void {
  runCleanups()
}

function isOurs(listener: unknown): boolean {
  return typeof listener === 'function' && HOOK_MARK in listener
}

/**
 * A host signal arrived. When nothing else listens for it, Node would have died by it: clean up synchronously, take
 * the hooks away and re-raise it, so the host still dies by that signal (its exit status is the signal's). When the
 * host has handlers of its own, it decides: nothing is killed now, and the `exit` hook cleans up if it exits.
 */
function onSignal(signal: NodeJS.Signals): void {
  if (process.listeners(signal).some((listener) => !isOurs(listener))) return
  runCleanups()
  uninstall()
  process.kill(process.pid, signal)
}

const signalListeners = new Map<NodeJS.Signals, (signal: NodeJS.Signals) => void>(
  HOST_SIGNALS.map((signal) => [signal, Object.assign((received: NodeJS.Signals) => onSignal(received), { [HOOK_MARK]: true })]),
)

let installed = false

function install(): void {
  if (installed) return
  installed = true
  process.on('exit', onExit)
  for (const [signal, listener] of signalListeners) process.on(signal, listener)
}

function uninstall(): void {
  if (!installed) return
  installed = false
  process.off('exit', onExit)
  for (const [signal, listener] of signalListeners) process.off(signal, listener)
}

/**
 * Registers `cleanup` (synchronous: it must not wait for anything) to run when the host exits (`exit`, normally or
 * by `process.exit`) or dies by SIGINT, SIGTERM or SIGHUP. The hooks are installed while at least one cleanup is
 * registered and removed with the last one. Returns the function that unregisters it.
 */
export function onHostExit(cleanup: () => void): () => void {
  cleanups.add(cleanup)
  install()
  return () => {
    cleanups.delete(cleanup)
    if (cleanups.size === 0) uninstall()
  }
}
