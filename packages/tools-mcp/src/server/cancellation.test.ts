// Cancellation that never reached the tool: over Streamable HTTP in the 2026-07-28 era a client cancels by closing
// its request's stream (it sends no notifications/cancelled), and the request serveToolsHttp handed to the SDK
// carried no `signal`, so the served tool ran on. Every era's cancellation, over each transport, from the official
// clients (SDK v2 in both eras, SDK v1) and from our own client plugin, must abort the tool's `exec.signal`.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defineTool } from '@dsh/tools-registry'
import { createToolContext } from '@dsh/tools-testing'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport as V1StdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterEach, describe, expect, it } from 'vitest'
import { mcpServer, whenMcpServerReady } from '../index.js'
import { sleep, until } from '../test-support/fixtures.js'
import { serveToolsHttp } from './index.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A client of one kind, connected: what it negotiated, and a `wait` call that its signal cancels. */
interface ConnectedClient {
  readonly era: string | undefined
  call(signal: AbortSignal): Promise<unknown>
  close(): Promise<void>
}

type Target = { readonly kind: 'http'; readonly url: string } | { readonly kind: 'stdio'; readonly command: string; readonly args: string[]; readonly env: Record<string, string> }

const modern = { mode: 'auto' } as const
const legacy = { mode: 'legacy' } as const

/** The official clients, by name: how each connects to a target. */
const clients: Record<string, (target: Target) => Promise<ConnectedClient>> = {
  'SDK v2, 2026-07-28': (target) => connectV2(target, modern),
  'SDK v2, 2025 era': (target) => connectV2(target, legacy),
  'SDK v1 (2025 era)': connectV1,
}

async function connectV2(target: Target, versionNegotiation: typeof modern | typeof legacy): Promise<ConnectedClient> {
  const client = new Client({ name: 'cancel-test', version: '1.0.0' }, { versionNegotiation })
  const transport =
    target.kind === 'http'
      ? new StreamableHTTPClientTransport(new URL(target.url))
      : new StdioClientTransport({ command: target.command, args: target.args, env: { ...getDefaultEnvironment(), ...target.env }, stderr: 'ignore' })
  await client.connect(transport, { timeout: 60_000 })
  return {
    era: client.getProtocolEra(),
    call: (signal) => client.callTool({ name: 'wait', arguments: {} }, { signal, timeout: 60_000 }),
    close: () => client.close(),
  }
}

async function connectV1(target: Target): Promise<ConnectedClient> {
  const client = new V1Client({ name: 'cancel-test-v1', version: '1.0.0' })
  const transport =
    target.kind === 'http'
      ? new V1HttpTransport(new URL(target.url))
      : new V1StdioTransport({ command: target.command, args: target.args, env: { ...getDefaultEnvironment(), ...target.env }, stderr: 'ignore' })
  await client.connect(transport, { timeout: 60_000 })
  return {
    era: 'legacy',
    call: (signal) => client.callTool({ name: 'wait', arguments: {} }, undefined, { signal, timeout: 60_000 }),
    close: () => client.close(),
  }
}

/** The generous bound on how long a cancellation may take to reach the tool (measured: milliseconds; without the request signal, a 2026-07-28 HTTP cancellation never did). */
const reachBoundMs = 10_000

/** A registry served over HTTP with a `wait` tool that runs until its `exec.signal` aborts. */
async function servedWaitingRegistry() {
  const t = await createToolContext()
  cleanups.push(() => t.dispose())
  let started!: () => void
  const startedOnce = new Promise<void>((resolve) => (started = resolve))
  let aborted!: (reason: unknown) => void
  const abortedOnce = new Promise<unknown>((resolve) => (aborted = resolve))
  t.tools.register(
    defineTool({
      name: 'wait',
      description: 'Waits until the call is cancelled.',
      parameters: {},
      concurrencySafe: true, // no ask: nobody could answer one
      execute: (_args, exec) =>
        new Promise<string>((resolve) => {
          started()
          exec.signal.addEventListener('abort', () => (aborted(exec.signal.reason), resolve('aborted')), { once: true })
          setTimeout(() => resolve('never cancelled'), 30_000).unref()
        }),
    }),
  )
  const served = await serveToolsHttp(t.ctx)
  cleanups.push(() => served.close())
  return { t, url: served.url, started: startedOnce, aborted: abortedOnce }
}

/** Resolves true when `promise` settles within `ms`. */
const within = (promise: Promise<unknown>, ms: number): Promise<boolean> => Promise.race([promise.then(() => true), sleep(ms).then(() => false)])

describe('a client cancels a served call over Streamable HTTP: the tool sees exec.signal abort', () => {
  for (const [name, connect] of Object.entries(clients)) {
    it(`${name}`, async () => {
      const { url, started, aborted } = await servedWaitingRegistry()
      const client = await connect({ kind: 'http', url })
      cleanups.push(() => client.close())
      expect(client.era).toBe(name.includes('2026') ? 'modern' : 'legacy')
      const controller = new AbortController()
      const call = client.call(controller.signal).then(
        () => 'settled',
        () => 'rejected',
      )
      await started
      controller.abort()
      expect(await call).toBe('rejected')
      expect(await within(aborted, reachBoundMs)).toBe(true)
    })
  }

  it('our client plugin (2026-07-28): an aborted execute aborts the served tool', async () => {
    const { url, started, aborted } = await servedWaitingRegistry()
    const client = await createToolContext()
    cleanups.push(() => client.dispose())
    await client.load(mcpServer, { id: 'remote', url, protocol: 'auto', tools: { wait: { approval: 'allow' } } })
    expect((await whenMcpServerReady(client.ctx, 'remote')).era).toBe('modern')
    const controller = new AbortController()
    const result = client.tools.execute({ callId: 'w', name: 'mcp__remote__wait', arguments: {}, signal: controller.signal })
    await started
    controller.abort()
    expect((await result).error?.code).toBe('ABORTED')
    expect(await within(aborted, reachBoundMs)).toBe(true)
  })
})

describe('a client cancels a served call over stdio (notifications/cancelled): the tool sees exec.signal abort', () => {
  const child = join(import.meta.dirname, '..', 'test-support', 'serve-stdio-child.mjs')
  const entry = join(import.meta.dirname, '..', 'test-support', 'serve-cancel-entry.ts')

  for (const [name, connect] of Object.entries(clients)) {
    it(`${name}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'mcp-cancel-'))
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
      const marker = join(dir, 'marker')
      const lines = () => (existsSync(marker) ? readFileSync(marker, 'utf8') : '')
      const client = await connect({ kind: 'stdio', command: process.execPath, args: [child, entry], env: { CANCEL_MARKER: marker } })
      cleanups.push(() => client.close())
      expect(client.era).toBe(name.includes('2026') ? 'modern' : 'legacy')
      const controller = new AbortController()
      const call = client.call(controller.signal).then(
        () => 'settled',
        () => 'rejected',
      )
      await until(() => lines().includes('started\n'), 30_000, 'the served tool to start')
      controller.abort()
      expect(await call).toBe('rejected')
      await until(() => lines().includes('aborted'), reachBoundMs, 'the served tool to see the cancellation')
    })
  }
})
