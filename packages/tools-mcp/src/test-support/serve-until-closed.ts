// The tail every stdio entry of serve-stdio-child.mjs shares: serves `ctx`'s registry on this process's
// stdin/stdout until the client closes stdin or the test sends SIGTERM, then closes the server and exits with 0.
import type { Context } from 'cordis'
import { serveToolsStdio, type ServedTools } from '../server/index.js'

export async function serveUntilClosed(ctx: Context): Promise<ServedTools> {
  const served = await serveToolsStdio(ctx)
  let stopping = false
  const stop = async (): Promise<void> => {
    if (stopping) return
    stopping = true
    await served.close().catch(() => {})
    process.exit(0)
  }
  process.stdin.once('end', () => void stop())
  process.once('SIGTERM', () => void stop())
  return served
}
