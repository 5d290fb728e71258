// Serving MCP tasks over stdio (serveToolsStdio in a child process): the official SDK v1 client's 2025-11-25 task API
// (create, blocking tasks/result, tasks/cancel reaching exec.signal), and the SDK v2 client in the 2026-07-28 era
// without the tasks extension (the plain result).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/client'
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport as V1StdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { until } from '../test-support/fixtures.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const child = join(import.meta.dirname, '..', 'test-support', 'serve-stdio-child.mjs')
const entry = join(import.meta.dirname, '..', 'test-support', 'serve-tasks-entry.ts')

function target() {
  const dir = mkdtempSync(join(tmpdir(), 'served-tasks-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  const marker = join(dir, 'marker')
  return { marker, command: process.execPath, args: [child, entry], env: { ...getDefaultEnvironment(), TASK_MARKER: marker } }
}

const textOf = (result: unknown): string => ((result as { content?: { text?: string }[] }).content ?? []).map((block) => block.text ?? '').join('\n')

describe('serveToolsStdio serves tasks', () => {
  it('2025-11-25 (SDK v1): a task-augmented call, a blocking tasks/result, and tasks/cancel reaching exec.signal', async () => {
    const { marker, ...spawn } = target()
    const client = new V1Client({ name: 'stdio-tasks-v1', version: '1.0.0' })
    await client.connect(new V1StdioTransport({ ...spawn, stderr: 'ignore' }), { timeout: 60_000 })
    cleanups.push(() => client.close())
    expect((await client.listTools()).tools[0]?.execution).toEqual({ taskSupport: 'optional' })
    const start = async () => {
      const stream = client.experimental.tasks.callToolStream({ name: 'slow', arguments: {} }, CallToolResultSchema, { task: { ttl: 60_000 } })
      const first = (await stream.next()).value as { type: string; task: { taskId: string } }
      expect(first.type).toBe('taskCreated')
      return first.task.taskId
    }
    const done = await start()
    expect(textOf(await client.experimental.tasks.getTaskResult(done, CallToolResultSchema, { timeout: 30_000 }))).toBe('slow done')
    const cancelled = await start()
    expect((await client.experimental.tasks.cancelTask(cancelled)).status).toBe('cancelled')
    await until(() => existsSync(marker) && readFileSync(marker, 'utf8').includes('aborted'), 10_000, 'the tool saw the abort')
  })

  it('2026-07-28 (SDK v2) without the tasks extension: the plain result', async () => {
    const { command, args, env } = target()
    const client = new Client({ name: 'stdio-tasks-v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } })
    await client.connect(new StdioClientTransport({ command, args, env, stderr: 'ignore' }), { timeout: 60_000 })
    cleanups.push(() => client.close())
    expect(client.getProtocolEra()).toBe('modern')
    expect(textOf(await client.callTool({ name: 'slow', arguments: {} }, { timeout: 30_000 }))).toBe('slow done')
  })
})
