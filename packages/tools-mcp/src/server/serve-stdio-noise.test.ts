// A registry served over stdio, in a real child process, against the official clients (SDK v2 in both eras, SDK v1).
// What broke: stdout is the protocol stream, and a tool's `console.log` (or any other write to `process.stdout`)
// went into it: a stray line is a parse error for the client, and a write without a newline glues itself to the next
// message, which is then lost (the call never answers). While serving, such writes now go to stderr. The same child
// also checks, over stdio, what served-protocol.test.ts checks over HTTP: declared annotations, unknown tools as
// -32602, and an ask put to the client's user.
import { join } from 'node:path'
import { Client, ProtocolError } from '@modelcontextprotocol/client'
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport as V1StdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ElicitRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { alive, until } from '../test-support/fixtures.js'

const here = join(import.meta.dirname, '..', 'test-support')
const child = join(here, 'serve-stdio-child.mjs')
const entry = join(here, 'serve-stdio-noisy-entry.ts')

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

interface StdioClient {
  readonly era: string | undefined
  readonly pid: () => number | undefined
  readonly stderr: () => string
  readonly errors: Error[]
  listTools(): Promise<{ name: string; title?: string | undefined; annotations?: Record<string, unknown> | undefined }[]>
  call(name: string, args?: Record<string, unknown>): Promise<{ text: string; isError: boolean }>
  close(): Promise<void>
}

/** The official client's own request timeout is 60 s; a lost response should fail the test sooner than that. */
const callTimeoutMs = 20_000
const accept = { action: 'accept' as const }

function textOf(result: object): { text: string; isError: boolean } {
  const { content, isError } = result as { content?: unknown; isError?: unknown }
  const blocks = Array.isArray(content) ? (content as { text?: string }[]) : []
  return { text: blocks.map((block) => block.text ?? '').join('\n'), isError: isError === true }
}

async function connectV2(mode: 'auto' | 'legacy'): Promise<StdioClient> {
  const client = new Client({ name: 'stdio-noise-v2', version: '1.0.0' }, { versionNegotiation: { mode }, capabilities: { elicitation: { form: {} } } })
  client.setRequestHandler('elicitation/create', () => accept)
  const errors: Error[] = []
  client.onerror = (error) => void errors.push(error)
  const transport = new StdioClientTransport({ command: process.execPath, args: [child, entry], env: getDefaultEnvironment(), stderr: 'pipe' })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')))
  // The child compiles its entry from source first; a loaded machine takes its time.
  await client.connect(transport, { timeout: 60_000 })
  return {
    era: client.getProtocolEra(),
    pid: () => transport.pid ?? undefined,
    stderr: () => stderr,
    errors,
    listTools: async () => (await client.listTools()).tools,
    call: async (name, args = {}) => textOf(await client.callTool({ name, arguments: args }, { timeout: callTimeoutMs })),
    close: () => client.close(),
  }
}

async function connectV1(): Promise<StdioClient> {
  const client = new V1Client({ name: 'stdio-noise-v1', version: '1.0.0' }, { capabilities: { elicitation: {} } })
  client.setRequestHandler(ElicitRequestSchema, () => accept)
  const errors: Error[] = []
  client.onerror = (error) => void errors.push(error)
  const transport = new V1StdioTransport({ command: process.execPath, args: [child, entry], env: getDefaultEnvironment(), stderr: 'pipe' })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString('utf8')))
  await client.connect(transport, { timeout: 60_000 })
  return {
    era: 'legacy',
    pid: () => transport.pid ?? undefined,
    stderr: () => stderr,
    errors,
    listTools: async () => (await client.listTools()).tools,
    call: async (name, args = {}) => textOf(await client.callTool({ name, arguments: args }, undefined, { timeout: callTimeoutMs })),
    close: () => client.close(),
  }
}

const clients: Record<string, () => Promise<StdioClient>> = {
  'SDK v2, 2026-07-28': () => connectV2('auto'),
  'SDK v2, 2025 era': () => connectV2('legacy'),
  'SDK v1 (2025 era)': connectV1,
}

describe.each(Object.entries(clients))('serveToolsStdio in a child process, %s client', (_label, connect) => {
  it("a tool's console.log and process.stdout.write go to stderr, and the protocol stream stays intact", async () => {
    const client = await connect()
    cleanups.push(() => client.close())
    const pid = client.pid()
    expect(pid).toBeTypeOf('number')

    expect(await client.call('noisy')).toEqual({ text: 'quiet result', isError: false })
    // The write without a newline did not swallow the next message either.
    expect(await client.call('noisy')).toEqual({ text: 'quiet result', isError: false })
    expect(client.errors).toEqual([])
    await until(() => client.stderr().includes('partial line without newline'), 10_000, "the tool's stdout writes on stderr")
    expect(client.stderr()).toContain('tool log line')
    expect(client.stderr()).toContain('an object logged with console.info')

    // The rest of the served surface, over stdio.
    const listed = new Map((await client.listTools()).map((tool) => [tool.name, tool]))
    expect(listed.get('read_notes')?.title).toBe('Read the notes')
    expect(listed.get('read_notes')?.annotations).toEqual({ readOnlyHint: true, openWorldHint: false })
    expect(listed.get('noisy')?.annotations).toBeUndefined()
    const unknown = await client.call('no_such_tool').then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(unknown instanceof ProtocolError || unknown instanceof McpError, String(unknown)).toBe(true)
    expect((unknown as { code: number }).code).toBe(-32602)
    expect(await client.call('rm', { path: '/tmp/x' })).toEqual({ text: 'removed /tmp/x', isError: false })
    expect(client.errors).toEqual([])

    await client.close()
    await until(() => !alive(pid as number), 15_000, `the serving child ${pid} to exit`)
  })
})
