import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { McpServerConfig } from '../server-config.js'
import { fixtureServer } from './fixtures.js'
import { loadFixture, type LoadedFixture } from './load.js'

/** The hand-written server that sends whatever a test gives it (see hostile-server.mjs). */
export const hostileServer: string = join(dirname(fixtureServer), 'hostile-server.mjs')

/** A tool definition the hostile server lists as it is (no defaults are added). */
export const trustedTool = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  name,
  description: `The ${name} tool`,
  inputSchema: { type: 'object' },
  annotations: { readOnlyHint: true },
  ...extra,
})

/** What {@link loadHostile} returns: the loaded fixture, and the server's request log. */
export interface LoadedHostile extends LoadedFixture {
  /** The methods the server was sent, in order. */
  readonly requests: () => string[]
}

/** A listing as JSON text written as it is (for values too large or deep for JSON.stringify). */
export interface RawListing {
  readonly raw: string
}

/**
 * Loads the hostile server with `tools` (listed as they are) and `results` (the raw JSON text of each tool's
 * `tools/call` result, by tool name), trusted unless `config` says otherwise, and waits until it settles.
 */
export async function loadHostile(
  tools: readonly unknown[] | RawListing,
  results: Readonly<Record<string, string>>,
  cleanups: (() => Promise<void> | void)[],
  config: Partial<McpServerConfig> = {},
  env: Record<string, string> = {},
): Promise<LoadedHostile> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-hostile-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  const toolsFile = join(dir, 'tools.json')
  const resultsFile = join(dir, 'results.json')
  const log = join(dir, 'requests.log')
  writeFileSync(toolsFile, 'raw' in tools ? tools.raw : JSON.stringify(tools))
  writeFileSync(resultsFile, JSON.stringify(results))
  writeFileSync(log, '')
  const loaded = await loadFixture([], cleanups, {
    config: { trust: true, args: [hostileServer], restart: { maxRestarts: 0 }, ...config },
    env: { FIXTURE_TOOLS: toolsFile, FIXTURE_RESULTS: resultsFile, FIXTURE_LOG: log, ...env },
  })
  return { ...loaded, requests: () => readFileSync(log, 'utf8').split('\n').filter((line) => line !== '') }
}
