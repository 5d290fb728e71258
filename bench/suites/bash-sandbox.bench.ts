// The sandboxed executor (bubblewrap) against the local executor and raw child_process, in one run.
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { LocalBashExecutor } from '@dsh/tool-bash'
import { SandboxedBashExecutor } from '@dsh/tool-bash-sandbox'
import { BIG_COMMAND, OUTPUT_BYTES, rawOutputDiscarded, rawTrue } from '../bash-runners.js'
import { defineSuite } from '../harness.js'

const bigCommand = BIG_COMMAND

/** `bwrap --ro-bind / / true`, spawned and awaited: what bubblewrap costs before any profile. */
function bwrapFloor(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bwrap', ['--ro-bind', '/', '/', '--', 'true'], { stdio: 'ignore' })
    child.once('error', reject)
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`bwrap exited ${code}`))))
  })
}
const scratch = mkdtempSync(join(tmpdir(), 'dsh-bash-sandbox-bench-'))
const disposers: (() => Promise<void>)[] = []

async function load(plugin: typeof LocalBashExecutor | typeof SandboxedBashExecutor, config: object = {}): Promise<Context> {
  const ctx = new Context()
  const fiber = await ctx.plugin(plugin, { cwd: scratch, tempDir: scratch, ...config })
  disposers.push(() => fiber.dispose())
  return ctx
}

export default defineSuite({
  name: 'bash-sandbox',
  description:
    '`SandboxedBashExecutor` of `@dsh/tool-bash-sandbox` (bubblewrap: every namespace, capabilities dropped, seccomp, the full mount profile) ' +
    'against the local executor of `@dsh/tool-bash` and raw `spawn("bash", ["-c", …])`, in one run. `true`: `ctx.bash.run({ command: "true" })` ' +
    'until the result; with a network allow list the bridge helper (one Node start-up in the sandbox) runs first. 200 MB: `head -c 200000000 /dev/zero` with the bounded capture (`spillCapBytes: 0`) against a raw spawn whose piped stdout is discarded.',
  versions: {
    '@dsh/tool-bash-sandbox': JSON.parse(readFileSync(new URL('../../packages/tool-bash-sandbox/package.json', import.meta.url), 'utf8')).version,
    bwrap: spawnSync('bwrap', ['--version'], { encoding: 'utf8' }).stdout.trim(),
  },
  async groups() {
    const local = await load(LocalBashExecutor)
    const sandboxed = await load(SandboxedBashExecutor)
    const sandboxedNoSpill = await load(SandboxedBashExecutor, { spillCapBytes: 0 })
    // The allow list's cost: a Node helper starts in the sandbox before each command to hand the proxy its listener.
    const sandboxedNetwork = await load(SandboxedBashExecutor, { network: { allow: ['example.invalid:443'] } })
    return [
      {
        title: '`true` through the sandbox',
        baseline: 'local executor ctx.bash.run',
        target: { case: 'sandboxed ctx.bash.run', maxRatio: 3, label: '≤ 3× the local executor' },
        cases: {
          'raw spawn': rawTrue,
          'local executor ctx.bash.run': async () => {
            if ((await local.bash.run({ command: 'true' })).exitCode !== 0) throw new Error('true failed')
          },
          'sandboxed ctx.bash.run': async () => {
            if ((await sandboxed.bash.run({ command: 'true' })).exitCode !== 0) throw new Error('true failed')
          },
          'sandboxed ctx.bash.run, network allow list': async () => {
            if ((await sandboxedNetwork.bash.run({ command: 'true' })).exitCode !== 0) throw new Error('true failed')
          },
          // bubblewrap's own floor on this machine: no namespace but the mount one, one mount, no shell.
          'bwrap --ro-bind / / true (spawned bare)': bwrapFloor,
        },
      },
      {
        title: '`true`: the network allow list against the plain sandbox',
        baseline: 'sandboxed ctx.bash.run',
        target: { case: 'sandboxed ctx.bash.run, network allow list', maxRatio: 5, label: '≤ 5× the plain sandbox' },
        cases: {
          'sandboxed ctx.bash.run': async () => {
            if ((await sandboxed.bash.run({ command: 'true' })).exitCode !== 0) throw new Error('true failed')
          },
          'sandboxed ctx.bash.run, network allow list': async () => {
            if ((await sandboxedNetwork.bash.run({ command: 'true' })).exitCode !== 0) throw new Error('true failed')
          },
        },
      },
      {
        title: '200 MB of output through the sandbox',
        baseline: 'raw spawn, output discarded',
        target: { case: 'sandboxed ctx.bash.run (bounded capture)', maxRatio: 2, label: '≥ 50% of raw throughput (≤ 2×)' },
        options: { min_samples: 5, max_samples: 10, min_cpu_time: 0 },
        cases: {
          'raw spawn, output discarded': rawOutputDiscarded,
          'sandboxed ctx.bash.run (bounded capture)': async () => {
            const result = await sandboxedNoSpill.bash.run({ command: bigCommand })
            if (result.stdout.totalBytes !== OUTPUT_BYTES) throw new Error(`sandbox read ${result.stdout.totalBytes} bytes`)
          },
        },
      },
    ]
  },
  async dispose() {
    for (const dispose of disposers) await dispose()
    rmSync(scratch, { recursive: true, force: true })
  },
})
