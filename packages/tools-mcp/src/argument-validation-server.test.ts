// Class 9 of issue 31, end to end: a server tool's arguments are validated against its gated inputSchema before any
// tools/pre-execute listener, guard or person sees the call (INVALID_ARGS, the text a defineTool tool gives), with
// the fixture server and the npm reference servers; what cannot be checked is said at registration.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ToolApprovalRequest, ToolExecutionResult } from '@dsh/tools-core'
import { createToolContext, type ToolTestContext } from '@dsh/tools-testing'
import { defineTool } from '@dsh/tools-registry'
import { afterEach, describe, expect, it } from 'vitest'
import { mcpServer, requireFullArgumentValidation, whenMcpServerReady, type McpServerConfig, type McpServerStatus } from './index.js'
import { bin, fixture, fixtureTool } from './test-support/fixtures.js'
import { expectNoLeftovers, recordPids } from './test-support/load.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  await expectNoLeftovers()
})

const text = (result: ToolExecutionResult): string => result.content.map((block) => ('text' in block ? String(block.text) : `[${block.type}]`)).join('\n')

/** A tool context that records every status event, every pre-execute listener call, guard and approval request. */
async function watched() {
  const t = await createToolContext()
  recordPids(t)
  cleanups.push(() => t.dispose())
  const statuses: McpServerStatus[] = []
  const seen: string[] = []
  const asked: ToolApprovalRequest[] = []
  t.ctx.on('mcp/status', (status) => void statuses.push(status))
  t.ctx.provide('toolApproval', { requestApproval: async (request: ToolApprovalRequest) => (asked.push(request), { outcome: 'allowed-once' as const }) })
  t.ctx.on('tools/pre-execute', (exec, next) => (seen.push(`pre-execute ${exec.name}`), next()))
  t.tools.guard((exec) => void seen.push(`guard ${exec.name}`))
  return { t, statuses, seen, asked }
}

async function connect(t: ToolTestContext, config: McpServerConfig): Promise<McpServerStatus> {
  await t.load(mcpServer, { killGraceMs: 1_000, ...config })
  const status = await whenMcpServerReady(t.ctx, config.id)
  if (status.state !== 'ready') throw new Error(`server ${config.id} is ${status.state}: ${status.error?.message}`)
  return status
}

function fixtureConfig(tools: readonly unknown[], config: Partial<McpServerConfig> = {}): McpServerConfig {
  const fx = fixture(tools, { config })
  cleanups.push(fx.cleanup)
  return fx.config
}

const removeSchema = {
  type: 'object',
  properties: { paths: { type: 'array', items: { type: 'string' }, minItems: 1 }, force: { type: 'boolean' } },
  required: ['paths'],
  additionalProperties: false,
}
const agent = { id: 'alice' }

describe('arguments of a server tool are validated before any policy', () => {
  it('regression: a bad call is INVALID_ARGS before any pre-execute listener, guard or approval sees it, with the defineTool text', async () => {
    const { t, seen, asked } = await watched()
    // Untrusted and destructive: every call asks a person.
    await connect(t, fixtureConfig([fixtureTool('remove', { inputSchema: removeSchema, annotations: { destructiveHint: true } })]))
    const twin = defineTool({
      name: 'mcp__fx__remove',
      description: 'The same parameters as a defineTool tool.',
      parameters: { paths: { type: 'array', required: true, items: { type: 'string' }, minItems: 1 }, force: { type: 'boolean' } },
      execute: () => 'never',
    })
    for (const args of [{ paths: 'everything' }, { paths: [1, 'b'], force: 'yes' }, { paths: [] }, {}]) {
      const result = await t.tools.execute({ callId: 'bad', name: 'mcp__fx__remove', arguments: args, agent })
      expect(result.isError).toBe(true)
      expect(result.error).toEqual({ name: 'ToolArgsError', code: 'INVALID_ARGS' })
      const expected = twin.validateArguments(args)
      expect(expected.ok).toBe(false)
      if (!expected.ok) expect(text(result)).toBe(expected.message)
    }
    // The schema is closed (additionalProperties: false), which a DSL parameter map never is.
    const extra = await t.tools.execute({ callId: 'extra', name: 'mcp__fx__remove', arguments: { paths: ['a'], recursive: true }, agent })
    expect(extra.error?.code).toBe('INVALID_ARGS')
    expect(text(extra)).toContain('recursive')
    expect(seen).toEqual([])
    expect(asked).toEqual([])

    const good = await t.tools.execute({ callId: 'good', name: 'mcp__fx__remove', arguments: { paths: ['a'], force: true }, agent })
    expect(text(good)).toBe('echo {"paths":["a"],"force":true}')
    expect(seen).toEqual(['pre-execute mcp__fx__remove', 'guard mcp__fx__remove', 'guard mcp__fx__remove'])
    expect(asked).toHaveLength(1)
  })

  it('nullable and union fields as zod and pydantic servers write them accept every value their schema allows', async () => {
    const { t } = await watched()
    const inputSchema = {
      type: 'object',
      properties: {
        // pydantic: Optional[str] = None, Literal['a', 'b'] | None
        cursor: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null, title: 'Cursor' },
        mode: { anyOf: [{ enum: ['fast', 'safe'], type: 'string' }, { type: 'null' }], default: null },
        // zod: z.number().int().nullable(), z.union([z.string(), z.number()])
        limit: { type: ['integer', 'null'], minimum: 1 },
        key: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        tags: { type: 'array', items: { type: ['string', 'null'] } },
      },
      required: ['key'],
      additionalProperties: false,
      $schema: 'https://json-schema.org/draft/2020-12/schema',
    }
    const status = await connect(t, fixtureConfig([fixtureTool('find', { inputSchema })], { trust: true }))
    expect(status.tools.find((tool) => tool.wireName === 'find')).toMatchObject({ state: 'registered', note: undefined })
    for (const args of [
      { key: 'k', cursor: null, mode: null, limit: null, tags: [null, 'x'] },
      { key: 7, cursor: 'c2', mode: 'safe', limit: 10, tags: [] },
      { key: 7.5 },
    ]) {
      const result = await t.tools.execute({ callId: 'ok', name: 'mcp__fx__find', arguments: args })
      expect(result.isError).toBe(false)
      expect(text(result)).toBe(`echo ${JSON.stringify(args)}`)
    }
    for (const args of [{}, { key: null }, { key: 'k', mode: 'slow' }, { key: 'k', limit: 0 }, { key: 'k', limit: 2.5 }, { key: 'k', tags: [1] }]) {
      const result = await t.tools.execute({ callId: 'bad', name: 'mcp__fx__find', arguments: args })
      expect(result.error?.code).toBe('INVALID_ARGS')
    }
  })

  it('a schema with parts that cannot be checked registers with a note (status and mcp/status) and stays usable', async () => {
    const { t, statuses } = await watched()
    const inputSchema = {
      type: 'object',
      properties: {
        url: { type: 'string', pattern: '^https://', format: 'uri' },
        headers: { type: 'object', additionalProperties: { type: 'string' } },
        retries: { type: 'integer', maximum: 3 },
      },
      required: ['url'],
    }
    const status = await connect(t, fixtureConfig([fixtureTool('fetch', { inputSchema })], { trust: true }))
    const entry = status.tools.find((tool) => tool.wireName === 'fetch')
    expect(entry?.state).toBe('registered')
    expect(entry?.note).toMatch(/^its arguments are validated before the pipeline's policy, except for what this client cannot check \(the server checks it\): /)
    expect(entry?.note).toContain('/properties/url/pattern: pattern is not checked')
    expect(entry?.note).toContain('/properties/headers/additionalProperties: the values of additional properties are not checked')
    expect(statuses.at(-1)?.tools.find((tool) => tool.wireName === 'fetch')?.note).toBe(entry?.note)
    // The unchecked parts let values through; the checked ones do not.
    const loose = await t.tools.execute({ callId: 'l', name: 'mcp__fx__fetch', arguments: { url: 'ftp://x', headers: { a: 1 } } })
    expect(loose.isError).toBe(false)
    const wrong = await t.tools.execute({ callId: 'w', name: 'mcp__fx__fetch', arguments: { url: 'https://x', retries: 4 } })
    expect(wrong.error?.code).toBe('INVALID_ARGS')
    expect(text(wrong)).toContain('retries: must be at most 3, got 4')
  })

  it('a schema too large for the validators registers unvalidated, and its note says so at registration', async () => {
    const { t } = await watched()
    // An enum of 101 strings of 10,000 characters: past the validators' MAX_SCHEMA_SIZE (1,000,000 units).
    const huge = Array.from({ length: 101 }, (_, index) => `${index}-${'x'.repeat(10_000)}`)
    const status = await connect(t, fixtureConfig([fixtureTool('pick', { inputSchema: { type: 'object', properties: { choice: { type: 'string', enum: huge } } } })], { trust: true }))
    const entry = status.tools.find((tool) => tool.wireName === 'pick')
    expect(entry?.state).toBe('registered')
    expect(entry?.note).toMatch(/^its arguments are not validated before the pipeline's policy; the server checks them: \(root\): the schema is too large for the validators/)
    const result = await t.tools.execute({ callId: 'p', name: 'mcp__fx__pick', arguments: { choice: 'anything' } })
    expect(result.isError).toBe(false) // the server checks it
  })

  it('checkSchema: requireFullArgumentValidation rejects a tool that cannot be checked completely, and keeps the others', async () => {
    const { t } = await watched()
    const status = await connect(
      t,
      fixtureConfig(
        [
          fixtureTool('strict', { inputSchema: { type: 'object', properties: { n: { type: ['number', 'null'] } } } }),
          fixtureTool('patterned', { inputSchema: { type: 'object', properties: { id: { type: 'string', pattern: '^[a-z]+$' } } } }),
        ],
        { checkSchema: requireFullArgumentValidation },
      ),
    )
    expect(status.tools.find((tool) => tool.wireName === 'strict')?.state).toBe('registered')
    const rejected = status.tools.find((tool) => tool.wireName === 'patterned')
    expect(rejected?.state).toBe('rejected')
    expect(rejected?.findings).toEqual([expect.objectContaining({ code: 'check', message: expect.stringMatching(/cannot be validated completely: \/properties\/id\/pattern/) })])
    expect(t.tools.get('mcp__fx__patterned')).toBeUndefined()
  })
})

describe('the npm reference servers', () => {
  function tempDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-args-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    return dir
  }

  it('server-filesystem: bad arguments never reach the approval of write_file; every tool is checked completely', async () => {
    const { t, seen, asked } = await watched()
    const dir = tempDir()
    writeFileSync(join(dir, 'a.txt'), 'alpha')
    const status = await connect(t, { id: 'fs', command: bin('mcp-server-filesystem'), args: [dir] })
    const registered = status.tools.filter((tool) => tool.state === 'registered')
    expect(registered.length).toBeGreaterThanOrEqual(10)
    expect(registered.filter((tool) => tool.note !== undefined)).toEqual([])

    for (const [name, args] of [
      ['write_file', { path: join(dir, 'b.txt') }],
      ['write_file', { path: join(dir, 'b.txt'), content: 42 }],
      ['read_text_file', { path: join(dir, 'a.txt'), head: 'ten' }],
      ['list_directory_with_sizes', { path: dir, sortBy: 'date' }],
      ['edit_file', { path: join(dir, 'a.txt'), edits: [{ oldText: 'alpha' }] }],
    ] as const) {
      const result = await t.tools.execute({ callId: name, name: `mcp__fs__${name}`, arguments: args, agent })
      expect(result.error, `${name} ${JSON.stringify(args)}`).toEqual({ name: 'ToolArgsError', code: 'INVALID_ARGS' })
    }
    expect(seen).toEqual([])
    expect(asked).toEqual([])

    const write = await t.tools.execute({ callId: 'w', name: 'mcp__fs__write_file', arguments: { path: join(dir, 'b.txt'), content: 'beta' }, agent })
    expect(write.isError).toBe(false)
    expect(asked).toHaveLength(1)
    const sized = await t.tools.execute({ callId: 's', name: 'mcp__fs__list_directory_with_sizes', arguments: { path: dir, sortBy: 'size' }, agent })
    expect(sized.isError).toBe(false)
    expect(text(sized)).toContain('b.txt')
  })

  it('server-everything and server-memory: every tool is checked completely; a bad call is refused, a good one runs', async () => {
    const { t } = await watched()
    const dir = tempDir()
    const every = await connect(t, { id: 'every', command: bin('mcp-server-everything'), args: ['stdio'], trust: true })
    const memory = await connect(t, { id: 'mem', command: bin('mcp-server-memory'), env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') }, trust: true, tools: { create_entities: { approval: 'allow' } } })
    for (const status of [every, memory]) {
      const registered = status.tools.filter((tool) => tool.state === 'registered')
      expect(registered.length).toBeGreaterThanOrEqual(9)
      expect(registered.filter((tool) => tool.note !== undefined)).toEqual([])
    }
    const sum = await t.tools.execute({ callId: 's', name: 'mcp__every__get-sum', arguments: { a: 1, b: 2 } })
    expect(text(sum)).toContain('3')
    const wrongSum = await t.tools.execute({ callId: 'w', name: 'mcp__every__get-sum', arguments: { a: 1, b: 'two' } })
    expect(wrongSum.error?.code).toBe('INVALID_ARGS')
    expect(text(wrongSum)).toContain('b: expected a number, got the string "two"')
    const badEntities = await t.tools.execute({ callId: 'e', name: 'mcp__mem__create_entities', arguments: { entities: [{ name: 'dsh', entityType: 'project' }] } })
    expect(badEntities.error?.code).toBe('INVALID_ARGS')
    expect(text(badEntities)).toContain('entities[0]')
    const created = await t.tools.execute({ callId: 'c', name: 'mcp__mem__create_entities', arguments: { entities: [{ name: 'dsh', entityType: 'project', observations: ['uses MCP'] }] } })
    expect(created.isError).toBe(false)
  })
})
