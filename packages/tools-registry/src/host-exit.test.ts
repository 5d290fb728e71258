import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startInChild, type RunningChild } from './child-node.js'
import { HOST_SIGNALS, onHostExit } from './index.js'

const scratch = mkdtempSync(join(tmpdir(), 'registry-host-exit-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

let serial = 0

/** A host process with one cleanup that appends a line to a file; `ready` once its hooks are installed. */
function startHost(options: { ownSigint?: boolean; throwingFirst?: boolean } = {}): { host: RunningChild; marker: string; runs: () => number } {
  serial += 1
  const marker = join(scratch, `cleaned-${serial}`)
  const scenario = [
    "import { appendFileSync } from 'node:fs'",
    "import { onHostExit } from './index.js'",
    options.throwingFirst === true ? "onHostExit(() => { throw new Error('a cleanup that fails') })" : '',
    `onHostExit(() => appendFileSync(${JSON.stringify(marker)}, 'cleaned\\n'))`,
    options.ownSigint === true
      ? "process.on('SIGINT', () => process.stdout.write('survived\\n')); process.stdin.on('end', () => process.exit(7)); process.stdin.resume()"
      : 'setInterval(() => {}, 1_000)',
    "process.stdout.write('ready\\n')",
  ].join('\n')
  const host = startInChild(scenario)
  const runs = () => (existsSync(marker) ? readFileSync(marker, 'utf8').split('\n').filter((line) => line !== '').length : 0)
  return { host, marker, runs }
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (const start = Date.now(); !check(); await new Promise((resolve) => setTimeout(resolve, 20))) {
    if (Date.now() - start > 30_000) throw new Error(`timed out waiting for ${what}`)
  }
}

describe('onHostExit: a host that dies by a signal it does not handle', () => {
  for (const signal of HOST_SIGNALS) {
    it(`${signal}: runs the cleanup once, and the host still dies by ${signal}`, async () => {
      const { host, runs } = startHost()
      await until(() => host.stdout().includes('ready\n'), 'the host to start')
      host.process.kill(signal)
      const outcome = await host.outcome
      expect({ code: outcome.code, signal: outcome.signal }).toEqual({ code: null, signal })
      expect(runs()).toBe(1)
    })
  }
})

describe('onHostExit: a host that decides for itself', () => {
  it('with its own SIGINT handler survives the signal untouched, and the cleanup runs when it exits', async () => {
    const { host, runs } = startHost({ ownSigint: true })
    await until(() => host.stdout().includes('ready\n'), 'the host to start')
    host.process.kill('SIGINT')
    await until(() => host.stdout().includes('survived\n'), 'the host to handle SIGINT')
    expect(runs()).toBe(0)
    host.process.stdin.end()
    const outcome = await host.outcome
    expect({ code: outcome.code, signal: outcome.signal }).toEqual({ code: 7, signal: null })
    expect(runs()).toBe(1)
  })

  it('a cleanup that throws does not keep the others from running', async () => {
    const { host, runs } = startHost({ throwingFirst: true })
    await until(() => host.stdout().includes('ready\n'), 'the host to start')
    host.process.kill('SIGTERM')
    const outcome = await host.outcome
    expect(outcome.signal).toBe('SIGTERM')
    expect(runs()).toBe(1)
  })
})

describe('onHostExit: the hooks', () => {
  const events = ['exit', ...HOST_SIGNALS] as const
  const counts = (): number[] => events.map((event) => process.listenerCount(event))

  it('are one listener per event while any cleanup is registered, and gone with the last one (no listener leak)', () => {
    const before = counts()
    const releaseFirst = onHostExit(() => {})
    expect(counts()).toEqual(before.map((count) => count + 1))
    const releaseSecond = onHostExit(() => {})
    expect(counts()).toEqual(before.map((count) => count + 1))
    releaseFirst()
    releaseFirst() // idempotent: it does not release the second registration
    expect(counts()).toEqual(before.map((count) => count + 1))
    releaseSecond()
    expect(counts()).toEqual(before)
  })

  it('run only the cleanups still registered when the host exits', () => {
    const ran: string[] = []
    const release = onHostExit(() => ran.push('released'))
    const releaseKept = onHostExit(() => ran.push('kept'))
    release()
    const hook = process.listeners('exit').find((listener) => Symbol.for('dsh.hostExitHook') in listener) as () => void
    hook() // what Node does at exit
    releaseKept()
    expect(ran).toEqual(['kept'])
  })
})
