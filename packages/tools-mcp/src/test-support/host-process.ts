import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { until } from './fixtures.js'

const hostScript = join(import.meta.dirname, 'mcp-host.mjs')

/** How a host process ended. */
export interface HostExit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

/** A running `mcp-host.mjs` (see there for the modes). */
export interface McpHost {
  readonly process: ChildProcessWithoutNullStreams
  readonly exited: Promise<HostExit>
  /** Its stdout so far (stderr is kept for failure messages). */
  output(): string
  /** Resolves with the pids once it printed `ready`: its MCP server's (and process group's) and the grandchild's. */
  ready(): Promise<{ readonly server: number; readonly grandchild: number }>
}

/** Every pid a host reported, SIGKILLed by {@link killHostLeftovers} whatever the test did. */
const reported: number[] = []
const scratch: string[] = []

/** Starts `mcp-host.mjs` in `mode` in a plain `node` process. */
export function startMcpHost(mode: 'plain' | 'own-sigint' | 'dispose'): McpHost {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-host-'))
  scratch.push(dir)
  const child = spawn(process.execPath, [hostScript, dir, mode], { stdio: ['pipe', 'pipe', 'pipe'] })
  let output = ''
  let errors = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (errors += chunk))
  const exited = new Promise<HostExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
  let done = false
  void exited.then(() => (done = true))
  return {
    process: child,
    exited,
    output: () => output,
    ready: async () => {
      const line = /^ready (\d+) (\d+)$/m
      await until(() => line.test(output) || done, 60_000, 'the host to start its MCP server')
      const match = line.exec(output)
      if (match === null) throw new Error(`the host ended before it was ready: ${errors.slice(-2_000)}`)
      const pids = { server: Number(match[1]), grandchild: Number(match[2]) }
      reported.push(pids.grandchild, -pids.server)
      return pids
    },
  }
}

/** SIGKILLs every process group and process any host reported, and removes the hosts' scratch directories. */
export function killHostLeftovers(): void {
  for (const pid of reported.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // Gone, as it should be.
    }
  }
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true })
}
