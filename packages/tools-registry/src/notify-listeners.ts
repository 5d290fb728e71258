import type { Context } from 'cordis'

/**
 * Tells the listeners of the cordis event `name` (added with `ctx.on`) as `ctx.emit(name, ...args)` would, every
 * listener called synchronously, and observes what they do: each one that throws, or whose returned promise (an
 * `async` listener) rejects, is handed to `report`, once per listener. `ctx.emit` rethrows the first synchronous
 * throw into the emitter and leaves every rejection unhandled; this never throws and leaves nothing unhandled. For
 * events a package emits to observers that cannot change its course (status, progress, a late settlement).
 *
 * @example
 * ```ts
 * import type { Context } from 'cordis'
 * import { notifyListeners } from '@dsh/tools-registry'
 *
 * export function reportProgress(ctx: Context, progress: number): void {
 *   notifyListeners(ctx, 'files/progress', [progress], (error) => ctx.logger('files').warn('a files/progress listener failed', error))
 * }
 * ```
 */
export function notifyListeners(ctx: Context, name: string, args: readonly unknown[], report: (error: unknown) => void): void {
  const tell = (error: unknown): void => {
    for (const reason of error instanceof AggregateError ? error.errors : [error]) {
      try {
        report(reason)
      } catch {
        // A report that throws must not turn a notice into a failure.
      }
    }
  }
  try {
    // `parallel` calls every listener at once, as `emit` does, and settles when they have: their failures are ours to see.
    ;(ctx.parallel as (name: string, ...args: unknown[]) => Promise<void>).call(ctx, name, ...args).then(undefined, tell)
  } catch (error) {
    tell(error)
  }
}
