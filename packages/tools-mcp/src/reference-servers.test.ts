// The official reference servers from npm (devDependencies), spawned over stdio from node_modules/.bin.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createToolContext, type ToolTestContext } from '@dsh/tools-testing'
import { afterEach, describe, expect, it } from 'vitest'
import { DEFAULT_INHERITED_ENV, mcpServer, whenMcpServerReady, type McpProgressEvent, type McpServerConfig } from './index.js'
import { bin } from './test-support/fixtures.js'
import { expectNoLeftovers, recordPids } from './test-support/load.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  await expectNoLeftovers()
})

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-ref-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

async function connect(config: McpServerConfig): Promise<ToolTestContext> {
  const t = await createToolContext()
  recordPids(t)
  cleanups.push(() => t.dispose())
  await t.load(mcpServer, { killGraceMs: 1_000, ...config })
  const status = await whenMcpServerReady(t.ctx, config.id)
  if (status.state !== 'ready') throw new Error(`server ${config.id} is ${status.state}: ${status.error?.message}`)
  return t
}

const text = (content: readonly { type: string }[]): string => content.map((block) => ('text' in block ? String(block.text) : `[${block.type}]`)).join('\n')

describe('server-everything', () => {
  it('lists its tools (the task-only one too), maps content types, and resets the deadline on progress', async () => {
    const t = await connect({ id: 'every', command: bin('mcp-server-everything'), args: ['stdio'], trust: true, timeouts: { call: 1_500 } })
    const { tools } = (await whenMcpServerReady(t.ctx, 'every'))
    expect(tools.length).toBeGreaterThanOrEqual(13)
    expect(tools.find((tool) => tool.wireName === 'simulate-research-query')?.state).toBe('registered') // MCP tasks: server-task.test.ts
    expect(t.tools.get('mcp__every__echo')).toBeDefined()
    // No client capability is advertised, so the elicitation and sampling tools are not offered at all.
    expect(tools.some((tool) => tool.wireName.startsWith('trigger-sampling'))).toBe(false)
    expect(t.tools.executionMode({ name: 'mcp__every__echo' })).toBe('parallel') // trusted readOnlyHint

    const image = await t.tools.execute({ callId: 'i', name: 'mcp__every__get-tiny-image', arguments: {} })
    expect(image.content.some((block) => block.type === 'image' && block.mimeType === 'image/png')).toBe(true)
    const links = await t.tools.execute({ callId: 'l', name: 'mcp__every__get-resource-links', arguments: { count: 2 } })
    expect(links.content.filter((block) => block.type === 'resource_link')).toHaveLength(2)

    const progress: McpProgressEvent[] = []
    t.ctx.on('mcp/progress', (event) => void progress.push(event))
    const long = await t.tools.execute({ callId: 'p', name: 'mcp__every__trigger-long-running-operation', arguments: { duration: 3, steps: 6 } })
    expect(long.isError).toBe(false)
    expect(progress.length).toBeGreaterThanOrEqual(5)
    const stalled = await t.tools.execute({ callId: 's', name: 'mcp__every__trigger-long-running-operation', arguments: { duration: 4, steps: 2 } })
    expect(stalled.error?.code).toBe('MCP_TIMEOUT')
  })

  it('gives the server only the allow-listed environment and the configured variables', async () => {
    process.env.DSH_MCP_HOST_SECRET = 'do-not-pass'
    cleanups.push(() => void delete process.env.DSH_MCP_HOST_SECRET)
    const t = await connect({ id: 'every', command: bin('mcp-server-everything'), args: ['stdio'], trust: true, env: { MY_SETTING: 'on' } })
    const result = await t.tools.execute({ callId: 'e', name: 'mcp__every__get-env', arguments: {} })
    const env = JSON.parse(text(result.content)) as Record<string, string>
    expect(env.MY_SETTING).toBe('on')
    expect(env.DSH_MCP_HOST_SECRET).toBeUndefined()
    // The .bin wrapper is a shell script: sh itself adds PWD, SHLVL and _, and the wrapper sets NODE_PATH.
    const shellAdded = new Set(['PWD', 'SHLVL', '_', 'NODE_PATH', 'OLDPWD'])
    const expected = [...DEFAULT_INHERITED_ENV.filter((name) => process.env[name] !== undefined), 'MY_SETTING'].sort()
    expect(Object.keys(env).filter((key) => !shellAdded.has(key)).sort()).toEqual(expected)
  })
})

describe('server-filesystem', () => {
  it('asks before write_file, runs reads serially unless trusted, and carries structured results', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'a.txt'), 'alpha')
    const untrusted = await connect({ id: 'fs', command: bin('mcp-server-filesystem'), args: [dir] })
    const write = await untrusted.tools.execute({ callId: 'w', name: 'mcp__fs__write_file', arguments: { path: join(dir, 'b.txt'), content: 'x' } })
    expect(write.error?.code).toBe('APPROVAL_NO_AGENT')
    expect(untrusted.tools.executionMode({ name: 'mcp__fs__read_text_file' })).toBe('serial')
    const trusted = await connect({ id: 'fs2', command: bin('mcp-server-filesystem'), args: [dir], trust: true })
    expect(trusted.tools.executionMode({ name: 'mcp__fs2__read_text_file' })).toBe('parallel')
    const read = await trusted.tools.execute({ callId: 'r', name: 'mcp__fs2__read_text_file', arguments: { path: join(dir, 'a.txt') } })
    expect(text(read.content)).toBe('alpha')
    expect(read.structuredContent).toMatchObject({ content: 'alpha' })
  })

  it('turns an 11 MB read into one MCP_RESULT_TOO_LARGE failure, restarts the server, and the next read works', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'big.txt'), 'y'.repeat(11 * 1024 * 1024))
    writeFileSync(join(dir, 'small.txt'), 'small')
    const t = await connect({ id: 'fs', command: bin('mcp-server-filesystem'), args: [dir], trust: true })
    const big = await t.tools.execute({ callId: 'b', name: 'mcp__fs__read_text_file', arguments: { path: join(dir, 'big.txt') } })
    expect(big.error).toEqual({ name: 'McpCallError', code: 'MCP_RESULT_TOO_LARGE' })
    const small = await t.tools.execute({ callId: 's', name: 'mcp__fs__read_text_file', arguments: { path: join(dir, 'small.txt') } })
    expect(small.isError).toBe(false)
    expect(text(small.content)).toBe('small')
  })
})

describe('server-memory', () => {
  it('creates and reads entities in a temp MEMORY_FILE_PATH, with structured results', async () => {
    const dir = tempDir()
    const t = await connect({ id: 'mem', command: bin('mcp-server-memory'), env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') }, trust: true, tools: { create_entities: { approval: 'allow' } } })
    expect(t.tools.schemas().length).toBe(9)
    const created = await t.tools.execute({ callId: 'c', name: 'mcp__mem__create_entities', arguments: { entities: [{ name: 'dsh', entityType: 'project', observations: ['uses MCP'] }] } })
    expect(created.isError).toBe(false)
    const graph = await t.tools.execute({ callId: 'g', name: 'mcp__mem__read_graph', arguments: {} })
    expect(graph.structuredContent).toMatchObject({ entities: [{ name: 'dsh', entityType: 'project', observations: ['uses MCP'] }] })
  })
})
