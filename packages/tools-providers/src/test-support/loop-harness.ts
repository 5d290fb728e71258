import { afterEach, beforeEach } from 'vitest'
import { loopContext } from './loop-tools.js'
import { startReplayServer, type ProviderRule, type ReplayResponse, type ReplayServer } from './replay-server.js'

/** The user's request every SDK-driven loop test starts from. */
export const loopPrompt = 'Read a.txt and b.txt, then delete a.txt.'

/** What a loop test works with: a fresh registry world per test, and the replay server it started. */
export interface LoopHarness {
  /** This test's registry, tools and policy ({@link loopContext}). */
  readonly world: Awaited<ReturnType<typeof loopContext>>
  /** The replay server this test started with {@link LoopHarness.serve}. */
  readonly server: ReplayServer
  /** Starts the replay server for this test with `script` (refusing what breaks `rules`); it is closed after the test. */
  serve(script: readonly ReplayResponse[], rules?: readonly ProviderRule[]): Promise<ReplayServer>
}

/** Registers the per-test set-up and tear-down of a loop test file (call it once, at the top level). */
export function useLoopHarness(): LoopHarness {
  let world: LoopHarness['world'] | undefined
  let server: ReplayServer | undefined
  beforeEach(async () => {
    world = await loopContext()
  })
  afterEach(async () => {
    await server?.close()
    server = undefined
    await world?.dispose()
    world = undefined
  })
  return {
    get world() {
      if (world === undefined) throw new Error('the loop world exists only inside a test')
      return world
    },
    get server() {
      if (server === undefined) throw new Error('this test started no replay server (call serve first)')
      return server
    },
    async serve(script, rules) {
      server = await startReplayServer(script, rules)
      return server
    },
  }
}
