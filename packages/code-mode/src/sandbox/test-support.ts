// Helpers of the sandboxed runtime's tests (never built or published).
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { beforeAll, describe } from 'vitest'

/** The suite title every test that needs a real bubblewrap sits under (the same as tool-bash-sandbox's). */
export const SANDBOX_SUITE_TITLE = 'in a bubblewrap sandbox'

const bubblewrapFound = (): boolean => spawnSync('bwrap', ['--version']).status === 0

/**
 * Declares tests that need a real bubblewrap. With it, or on CI (where a missing sandbox must fail, naming the fix),
 * they run. Elsewhere without it they are declared skipped: this package's vitest config does not leave the
 * `*.sandbox.test.ts` files out the way tool-bash-sandbox's does, and a file without a suite would fail.
 */
export function describeInSandbox(declare: () => void): void {
  // Without bubblewrap (and not on CI) vitest.config.ts leaves these files out of the run; here they always run.
  describe(SANDBOX_SUITE_TITLE, () => {
    beforeAll(() => {
      if (!bubblewrapFound()) throw new Error('bubblewrap is not installed, so the sandbox tests cannot run. Fix: apt-get install -y bubblewrap')
    })
    declare()
  })
}

/** Pids of live processes whose command line holds `token` as one argument. */
export function processesWith(token: string): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const state = /\) (\S)/.exec(readFileSync(`/proc/${entry}/stat`, 'latin1'))?.[1]
      if (state !== 'Z' && readFileSync(`/proc/${entry}/cmdline`, 'latin1').split('\0').includes(token)) found.push(Number(entry))
    } catch {
      // gone
    }
  }
  return found
}

/** Waits until `check` holds, polling every 10 ms, at most `ms`; returns whether it held. */
export async function eventually(check: () => boolean, ms = 2_000): Promise<boolean> {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (check()) return true
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return check()
}
