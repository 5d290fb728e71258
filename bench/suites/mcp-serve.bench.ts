// Serving at scale (issue 38): N concurrent MCP clients (the official SDK v2 client, 2026-07-28, one bearer token
// each) calling one served tool, against three set-ups: the registry served in this process (`serveToolsHttp`,
// clients connect to it directly), one replica process directly, and three replica processes behind a real nginx
// (round robin; tools-mcp's test configuration). Needs Debian's nginx for the proxied row.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { Agent } from '@dsh/tools-core'
import { callerTokens, serveToolsHttp, type ServedToolsHttp } from '@dsh/tools-mcp/server'
import { ToolRegistry } from '@dsh/tools-registry'
import { defineTool } from '@dsh/tools-schema'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { Context } from 'cordis'
import { defineSuite, formatNs, type BenchGroup, type MeasureOptions } from '../harness.js'

const CLIENTS = 16
const SUSTAIN_MS = 3_000
const here = fileURLToPath(new URL('.', import.meta.url))
const support = join(here, '..', '..', 'packages', 'tools-mcp', 'src', 'test-support')
const replicaScript = join(support, 'serve-replica.mjs')
/** tools-mcp's test helpers for nginx (loaded from source by tsx; outside this project's type-check). */
interface NginxHelpers {
  findNginx(): string | undefined
  startNginx(binary: string, upstreams: readonly number[]): Promise<{ readonly url: string; stop(): Promise<void> }>
}
const { findNginx, startNginx } = (await import(pathToFileURL(join(support, 'nginx.ts')).href)) as NginxHelpers
const packageVersion = (name: string): string => JSON.parse(readFileSync(join(here, '..', '..', 'packages', name, 'package.json'), 'utf8')).version

const IN_PROCESS = 'in-process serveToolsHttp, direct'
const ONE_REPLICA = '1 replica process, direct'
const PROXIED = 'nginx → 3 replica processes'

interface Setup {
  readonly url: string
  close(): Promise<void>
}

const children: ChildProcessWithoutNullStreams[] = []
let scratch = ''

async function inProcess(): Promise<Setup> {
  const ctx = new Context()
  await ctx.plugin(ToolRegistry)
  const alice: Agent = { id: 'alice' }
  ctx.tools.register(defineTool({ name: 'echo', description: 'Echoes.', parameters: { text: { type: 'string', required: true } }, execute: ({ text }, exec) => `${exec.agent?.id ?? 'nobody'}: ${text}` }))
  const served: ServedToolsHttp = await serveToolsHttp(ctx, { sessions: false, auth: callerTokens(new Map([['alice-token', { id: 'alice', agent: alice }]])) })
  return { url: served.url, close: () => served.close() }
}

function startReplica(): Promise<number> {
  const child = spawn(process.execPath, [replicaScript], { env: { ...process.env, DSH_REPLICA_LOG: join(scratch, 'calls.log') }, stdio: ['pipe', 'pipe', 'pipe'] })
  children.push(child)
  child.stderr.resume()
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
      const match = /ready (\d+)/.exec(out)
      if (match !== null) resolve(Number(match[1]))
    })
    child.once('exit', (code) => reject(new Error(`replica exited (${code})`)))
  })
}

async function connectClients(url: string): Promise<Client[]> {
  return Promise.all(
    Array.from({ length: CLIENTS }, async (_, index) => {
      const client = new Client({ name: `bench-${index}`, version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: 'Bearer alice-token' } } }))
      return client
    }),
  )
}

/** One round: every client makes one call, all at once. */
function burst(clients: readonly Client[]): () => Promise<unknown> {
  return () => Promise.all(clients.map((client) => client.callTool({ name: 'echo', arguments: { text: 'hi' } })))
}

/** Every client calls back to back for `SUSTAIN_MS`: calls per second and per-call latency. */
async function sustained(clients: readonly Client[]): Promise<{ perSecond: number; p50: number; p99: number; errors: number }> {
  const latencies: number[] = []
  let errors = 0
  const end = performance.now() + SUSTAIN_MS
  const started = performance.now()
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < end) {
        const at = performance.now()
        try {
          await client.callTool({ name: 'echo', arguments: { text: 'hi' } })
        } catch {
          errors += 1
        }
        latencies.push((performance.now() - at) * 1e6)
      }
    }),
  )
  const elapsed = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0
  return { perSecond: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), errors }
}

const setups = new Map<string, { setup: Setup; clients: Client[] }>()
const options: MeasureOptions = { min_samples: 50, max_samples: 200, min_cpu_time: 1e9, warmup_samples: 10 }

export default defineSuite({
  name: 'mcp-serve',
  description:
    `Serving to many agents: ${CLIENTS} concurrent clients (\`@modelcontextprotocol/client\` 2.4, the 2026-07-28 protocol, ` +
    'one bearer token mapped to an agent, `sessions: false`) call one served tool (`echo`). Three set-ups: the registry ' +
    'served in the bench process by `serveToolsHttp` (clients connect directly; the baseline), one replica process ' +
    '(tools-mcp\'s test replica, `serveToolsHttp` from source) directly, and three replica processes behind Debian\'s ' +
    'nginx (round robin, the configuration of the reference page). Table: one sample is one round of ' +
    `${CLIENTS} calls at once (each client one call); notes: every client calling back to back for ${SUSTAIN_MS / 1000} s, ` +
    'calls per second and per-call p50/p99. Clients and servers share the 2 cores.',
  versions: { '@dsh/tools-mcp': packageVersion('tools-mcp'), '@modelcontextprotocol/client': '2.4.0', nginx: nginxVersion() },
  async groups(): Promise<BenchGroup[]> {
    scratch = mkdtempSync(join(tmpdir(), 'dsh-bench-serve-'))
    const local = await inProcess()
    setups.set(IN_PROCESS, { setup: local, clients: await connectClients(local.url) })
    const ports = await Promise.all([startReplica(), startReplica(), startReplica()])
    const direct = `http://127.0.0.1:${ports[0]}/mcp`
    setups.set(ONE_REPLICA, { setup: { url: direct, close: async () => {} }, clients: await connectClients(direct) })
    const binary = findNginx()
    if (binary === undefined) throw new Error('mcp-serve: nginx is not installed (apt-get install -y nginx)')
    const proxy = await startNginx(binary, ports)
    setups.set(PROXIED, { setup: { url: proxy.url, close: proxy.stop }, clients: await connectClients(proxy.url) })
    const cases = Object.fromEntries([...setups].map(([name, { clients }]) => [name, burst(clients)]))
    return [{ title: `${CLIENTS} clients, one call each at once`, cases, baseline: IN_PROCESS, options, rounds: 2 }]
  },
  async notes() {
    const lines: string[] = []
    for (const [name, { clients }] of setups) {
      const run = await sustained(clients)
      lines.push(`- ${name}: **${Math.round(run.perSecond)} calls/s**, per-call p50 ${formatNs(run.p50)}, p99 **${formatNs(run.p99)}**, ${run.errors} errors (${CLIENTS} clients back to back for ${SUSTAIN_MS / 1000} s).`)
    }
    return lines.join('\n')
  },
  async dispose() {
    for (const { setup, clients } of setups.values()) {
      await Promise.all(clients.map((client) => client.close().catch(() => {})))
      await setup.close()
    }
    for (const child of children) child.kill('SIGKILL')
    if (scratch !== '') rmSync(scratch, { recursive: true, force: true })
  },
})

function nginxVersion(): string {
  const binary = findNginx()
  if (binary === undefined) return 'not installed'
  return /nginx\/(\S+)/.exec(spawnSync(binary, ['-v'], { encoding: 'utf8' }).stderr)?.[1] ?? 'unknown'
}
