// server-everything registers tools in `oninitialized`, so a burst of `notifications/tools/list_changed` always
// follows the handshake. The server runs behind a transparent stdio proxy (test-support/stdio-tap.mjs) that logs
// every message in wire order, so the test sees exactly how often the client listed and whether two listings
// ever overlapped.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createToolContext } from '@dsh/tools-testing'
import { afterEach, describe, expect, it } from 'vitest'
import { mcpServer, whenMcpServerReady } from './index.js'
import { bin, readJsonLines, until } from './test-support/fixtures.js'
import { expectNoLeftovers, recordPids } from './test-support/load.js'

const tap = join(import.meta.dirname, 'test-support', 'stdio-tap.mjs')

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  await expectNoLeftovers()
})

interface Tapped {
  readonly dir: 'in' | 'out'
  readonly message: { id?: number | string; method?: string; params?: { cursor?: string }; result?: { tools?: { name: string }[] } }
}

function readTap(file: string): Tapped[] {
  return readJsonLines<Tapped>(file)
}

/** The client's first-page `tools/list` requests, with the answer of each, in wire order. */
function listings(log: readonly Tapped[]): { request: number; answer: number | undefined; tools: string[] }[] {
  const out: { request: number; answer: number | undefined; tools: string[] }[] = []
  log.forEach((entry, index) => {
    const { message } = entry
    if (entry.dir !== 'in' || message.method !== 'tools/list' || message.params?.cursor !== undefined) return
    const answer = log.findIndex((other, at) => at > index && other.dir === 'out' && other.message.id === message.id && other.message.method === undefined)
    out.push({ request: index, answer: answer < 0 ? undefined : answer, tools: answer < 0 ? [] : (log[answer]!.message.result?.tools ?? []).map((tool) => tool.name) })
  })
  return out
}

describe('server-everything: the list_changed burst after connect', () => {
  it('is debounced into one re-listing, never two listings at once, and the registrations match the last listing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-burst-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    const log = join(dir, 'tap.jsonl')
    const t = await createToolContext()
    recordPids(t)
    cleanups.push(() => t.dispose())
    // Our client advertises no capabilities, for which the server adds one tool after the handshake. The proxy
    // advertises roots, sampling and elicitation on its behalf, so the server adds its conditional tools one by
    // one: the burst of several notifications the research notes describe.
    await t.load(mcpServer, {
      id: 'every',
      command: process.execPath,
      args: [tap, bin('mcp-server-everything'), 'stdio'],
      env: { TAP_LOG: log, TAP_CAPABILITIES: JSON.stringify({ roots: {}, sampling: {}, elicitation: {} }) },
      trust: true,
      killGraceMs: 1_000,
      // Generous, so a loaded machine cannot split one burst into two debounce windows.
      listChangedDebounceMs: 1_000,
    })
    const ready = await whenMcpServerReady(t.ctx, 'every')
    expect(ready.state).toBe('ready')

    await until(() => listings(readTap(log)).filter((listing) => listing.answer !== undefined).length >= 2, 30_000, 'the re-listing after the burst')
    // Longer than the debounce: a listing per notification, or a second debounce window, would show up here.
    await new Promise((resolve) => setTimeout(resolve, 2_500))

    const wire = readTap(log)
    const changes = wire.filter((entry) => entry.dir === 'out' && entry.message.method === 'notifications/tools/list_changed')
    expect(changes.length).toBeGreaterThanOrEqual(2)
    const lists = listings(wire)
    // The first listing of the connect, then exactly one for the whole burst.
    expect(lists).toHaveLength(2)
    // Single-flight: each listing is answered before the next one is asked for.
    expect(lists[0]!.answer).toBeDefined()
    expect(lists[0]!.answer!).toBeLessThan(lists[1]!.request)
    // The re-listing was asked for after the burst had arrived (it is the burst's refresh, not the connect's).
    const lastChange = wire.lastIndexOf(changes.at(-1)!)
    expect(lists[1]!.request).toBeGreaterThan(lastChange)

    const status = await whenMcpServerReady(t.ctx, 'every')
    const finalTools = lists[1]!.tools
    expect(finalTools).toContain('get-roots-list') // added by the burst
    expect(status.tools.map((tool) => tool.wireName).sort()).toEqual([...finalTools].sort())
    for (const tool of status.tools.filter((entry) => entry.state === 'registered')) expect(t.tools.get(tool.name)).toBeDefined()
    expect(t.tools.get('mcp__every__get-roots-list')).toBeDefined()
  })
})
