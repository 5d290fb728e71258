import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineTool } from '@dsh/tools-registry'
import type { McpServerConfig } from '../server-config.js'

const here = dirname(fileURLToPath(import.meta.url))
/** The package root (its node_modules/.bin holds the reference servers). */
export const packageRoot: string = join(here, '..', '..')
export const fixtureServer: string = join(here, 'fixture-server.mjs')
export const bin = (name: string): string => join(packageRoot, 'node_modules', '.bin', name)

/** A minimal tool for the fixture's list. */
export function fixtureTool(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, description: `The ${name} tool`, inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true, destructiveHint: false }, ...extra }
}

/** A temp dir with a tools file, and a config for the fixture server over it. Call `cleanup()` after. */
export function fixture(tools: readonly unknown[], options: { env?: Record<string, string>; config?: Partial<McpServerConfig>; id?: string } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-fixture-'))
  const toolsFile = join(dir, 'tools.json')
  const write = (list: readonly unknown[]): void => writeFileSync(toolsFile, JSON.stringify(list))
  write(tools)
  const config: McpServerConfig = {
    id: options.id ?? 'fx',
    command: process.execPath,
    args: [fixtureServer],
    killGraceMs: 500,
    restart: { initialDelayMs: 50, maxDelayMs: 200 },
    listChangedDebounceMs: 50,
    ...options.config,
    env: { FIXTURE_TOOLS: toolsFile, ...options.env, ...options.config?.env },
  }
  return { dir, toolsFile, write, config, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

/**
 * The complete JSON lines of a file another process appends to (the stdio tap): a last line still being written (no
 * newline yet) is left out, as it is not a message yet. `[]` when the file does not exist yet.
 */
export function readJsonLines<T>(file: string): T[] {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    return []
  }
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as T)
}

/** True while `pid` is a live (non-zombie) process. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]
    return state !== 'Z' && state !== 'X'
  } catch {
    return false
  }
}

/** Waits until `check()` holds, polling; throws after `timeoutMs`. */
export async function until(check: () => boolean, timeoutMs = 15_000, what = 'condition'): Promise<void> {
  const start = Date.now()
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await sleep(25)
  }
}

/** A tool with no parameters that answers its own name (registered on a served registry to make a change). */
export const plain = (name: string) => defineTool({ name, description: `The ${name} tool.`, parameters: {}, execute: () => name })

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
