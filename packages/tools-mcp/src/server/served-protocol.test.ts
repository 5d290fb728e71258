// Serving a registry, to the letter, against the official clients (SDK v2 in both eras, SDK v1) over Streamable HTTP.
// What broke:
// - every served tool was announced with `readOnlyHint` derived from `concurrencySafe` (a client may skip its
//   confirmation on it), and a tool author could not declare a title or the other hints;
// - `tools/call` of an unknown tool (or one the served agent does not see) was an `isError` result, where MCP says it
//   is a JSON-RPC error (-32602) in every revision;
// - an `ask` of the pipeline on a served call was always denied (`APPROVAL_NO_AGENT`): the client's user, the one
//   person who could answer, was never asked.
import type { ToolExecutionResult } from '@dsh/tools-core'
import { defineTool } from '@dsh/tools-registry'
import { createToolContext, type ToolTestContext } from '@dsh/tools-testing'
import { Client, ProtocolError, StreamableHTTPClientTransport, type ElicitRequestFormParams, type ElicitResult } from '@modelcontextprotocol/client'
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { McpConfigError } from '../mcp-config-error.js'
import { until } from '../test-support/fixtures.js'
import { createToolServer, serveToolsHttp, type HttpServeOptions } from './index.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** What a test's client's user answers to an elicitation (undefined: the client declares no elicitation). */
type Answer = (params: ElicitRequestFormParams) => Promise<ElicitResult> | ElicitResult

interface ListedTool {
  readonly name: string
  readonly title?: string | undefined
  readonly annotations?: Record<string, unknown> | undefined
}

interface CallOutcome {
  readonly text: string
  readonly isError: boolean
  readonly error: unknown
}

interface TestClient {
  readonly era: string | undefined
  listTools(): Promise<ListedTool[]>
  call(name: string, args?: Record<string, unknown>): Promise<CallOutcome>
  close(): Promise<void>
}

function outcome(result: { content?: unknown; isError?: unknown; _meta?: Record<string, unknown> | undefined }): CallOutcome {
  const blocks = Array.isArray(result.content) ? (result.content as { type: string; text?: string }[]) : []
  return { text: blocks.map((block) => block.text ?? '').join('\n'), isError: result.isError === true, error: result._meta?.['dsh/error'] }
}

async function connectV2(url: string, mode: 'auto' | 'legacy', answer?: Answer): Promise<TestClient> {
  const client = new Client(
    { name: 'served-protocol-v2', version: '1.0.0' },
    { versionNegotiation: { mode }, capabilities: answer === undefined ? {} : { elicitation: { form: {} } } },
  )
  if (answer !== undefined) client.setRequestHandler('elicitation/create', async (request) => answer(request.params as ElicitRequestFormParams))
  await client.connect(new StreamableHTTPClientTransport(new URL(url)), { timeout: 30_000 })
  return {
    era: client.getProtocolEra(),
    listTools: async () => (await client.listTools()).tools,
    call: async (name, args = {}) => outcome(await client.callTool({ name, arguments: args }, { timeout: 30_000 })),
    close: () => client.close(),
  }
}

async function connectV1(url: string, answer?: Answer): Promise<TestClient> {
  const client = new V1Client({ name: 'served-protocol-v1', version: '1.0.0' }, { capabilities: answer === undefined ? {} : { elicitation: {} } })
  if (answer !== undefined) client.setRequestHandler(ElicitRequestSchema, async (request) => answer(request.params as ElicitRequestFormParams))
  const transport = new V1Transport(new URL(url))
  await client.connect(transport, { timeout: 30_000 })
  return {
    era: 'legacy',
    listTools: async () => (await client.listTools()).tools,
    call: async (name, args = {}) => outcome(await client.callTool({ name, arguments: args }, undefined, { timeout: 30_000 })),
    close: async () => {
      await transport.terminateSession().catch(() => {})
      await client.close()
    },
  }
}

const clients: Record<string, (url: string, answer?: Answer) => Promise<TestClient>> = {
  'SDK v2, 2026-07-28': (url, answer) => connectV2(url, 'auto', answer),
  'SDK v2, 2025 era': (url, answer) => connectV2(url, 'legacy', answer),
  'SDK v1 (2025 era)': connectV1,
}

/**
 * A registry served for the agent `alice` over HTTP: `read_notes` (a declared title and hints), `count`
 * (`concurrencySafe` only), `rm` (destructive; a policy listener asks before every call), `secret` (global, but
 * hidden from alice by a restriction).
 */
async function servedRegistry(options: HttpServeOptions = {}) {
  const t = await createToolContext()
  cleanups.push(() => t.dispose())
  const removed: string[] = []
  const results: ToolExecutionResult[] = []
  t.tools.register(
    defineTool({
      name: 'read_notes',
      description: 'Reads the notes.',
      title: 'Read the notes',
      annotations: { readOnlyHint: true, openWorldHint: false },
      parameters: {},
      execute: () => 'the notes',
    }),
  )
  t.tools.register(defineTool({ name: 'count', description: 'Counts.', parameters: {}, concurrencySafe: true, execute: () => '3' }))
  t.tools.register(
    defineTool({
      name: 'rm',
      description: 'Removes a file.',
      title: 'Remove a file',
      annotations: { destructiveHint: true, idempotentHint: true },
      parameters: { path: { type: 'string', required: true } },
      execute: ({ path }) => (removed.push(path), `removed ${path}`),
    }),
  )
  t.tools.register(defineTool({ name: 'secret', description: 'Not for alice.', parameters: {}, execute: () => 'the secret' }))
  const alice = { id: 'alice' }
  t.tools.scope(alice).restrict({ deny: ['secret'] })
  t.tools.on('tools/pre-execute', (exec, next) => (exec.name === 'rm' ? { kind: 'ask', reason: 'it deletes a file' } : next()))
  t.ctx.on('tools/result', (_exec, result) => void results.push(result))
  const served = await serveToolsHttp(t.ctx, { agent: alice, ...options })
  cleanups.push(() => served.close())
  return { t, served, removed, results, alice }
}

async function open(make: (url: string, answer?: Answer) => Promise<TestClient>, url: string, answer?: Answer): Promise<TestClient> {
  const client = await make(url, answer)
  cleanups.push(() => client.close())
  return client
}

describe.each(Object.entries(clients))('served registry, %s client', (_label, make) => {
  it('lists exactly the title and annotations each tool declares; concurrencySafe is not announced as readOnlyHint', async () => {
    const { served } = await servedRegistry()
    const client = await open(make, served.url)
    const tools = await client.listTools()
    const byName = new Map(tools.map((tool) => [tool.name, tool]))
    expect([...byName.keys()].sort()).toEqual(['count', 'read_notes', 'rm'])
    expect(byName.get('read_notes')?.title).toBe('Read the notes')
    expect(byName.get('read_notes')?.annotations).toEqual({ readOnlyHint: true, openWorldHint: false })
    expect(byName.get('rm')?.title).toBe('Remove a file')
    expect(byName.get('rm')?.annotations).toEqual({ destructiveHint: true, idempotentHint: true })
    // concurrencySafe: true says the registry may run calls side by side, not that the tool changes nothing.
    expect(byName.get('count')?.annotations).toBeUndefined()
    expect(byName.get('count')?.title).toBeUndefined()
  })

  it('tools/call of an unknown tool, or of one the served agent does not see, is the JSON-RPC error -32602', async () => {
    const { served, results } = await servedRegistry()
    const client = await open(make, served.url)
    for (const name of ['no_such_tool', 'secret']) {
      const error = await client.call(name).then(
        (result) => result,
        (thrown: unknown) => thrown,
      )
      expect(error instanceof ProtocolError || error instanceof McpError, `${name}: ${JSON.stringify(error)}`).toBe(true)
      expect((error as { code: number }).code).toBe(-32602)
      expect((error as Error).message).toContain(`Unknown tool: "${name}"`)
    }
    // Nothing ran, and the pipeline saw no call: an unknown tool is refused before it.
    expect(results).toEqual([])
    expect((await client.call('count')).text).toBe('3')
  })

  it("an ask is put to the client's user: accept runs the call once, decline refuses it (APPROVAL_REJECTED)", async () => {
    const { served, removed } = await servedRegistry()
    const asked: ElicitRequestFormParams[] = []
    let action: ElicitResult['action'] = 'accept'
    const client = await open(make, served.url, (params) => (asked.push(params), { action }))
    const accepted = await client.call('rm', { path: '/tmp/a' })
    expect(accepted).toEqual({ text: 'removed /tmp/a', isError: false, error: undefined })
    expect(removed).toEqual(['/tmp/a'])
    expect(asked).toHaveLength(1)
    expect(asked[0]?.message).toBe('Allow the tool "rm" to run with these arguments? Why it is asked: it deletes a file.\n{"path":"/tmp/a"}\nAccept to run it once; decline to refuse.')
    expect(asked[0]?.requestedSchema).toEqual({ type: 'object', properties: {} })
    action = 'decline'
    const declined = await client.call('rm', { path: '/tmp/b' })
    expect(declined.isError).toBe(true)
    expect(declined.error).toEqual({ name: 'ToolDeniedError', code: 'APPROVAL_REJECTED' })
    expect(declined.text).toBe(`The call to "rm" was rejected: the MCP client's user declined it. It was not run.`)
    action = 'cancel'
    expect((await client.call('rm', { path: '/tmp/c' })).error).toEqual({ name: 'ToolDeniedError', code: 'APPROVAL_CANCELLED' })
    expect(removed).toEqual(['/tmp/a'])
    // A call that is not asked about is not put to the user.
    expect((await client.call('read_notes')).text).toBe('the notes')
    expect(asked).toHaveLength(3)
  })

  it('a client that did not declare elicitation gets a denial naming why (APPROVAL_UNAVAILABLE), not APPROVAL_NO_AGENT', async () => {
    const { served, removed } = await servedRegistry()
    const client = await open(make, served.url)
    const denied = await client.call('rm', { path: '/tmp/a' })
    expect(denied.isError).toBe(true)
    expect(denied.error).toEqual({ name: 'ToolDeniedError', code: 'APPROVAL_UNAVAILABLE' })
    expect(denied.text).toContain('the MCP client did not declare the elicitation capability (form mode), so its user cannot be asked')
    expect(removed).toEqual([])
  })
})

describe('approvals waiting for a 2026-07-28 client are bounded in number and time, and end with the server', () => {
  /** A v2 client in the 2026-07-28 era whose user answers only when `release` is called. */
  async function heldClient(url: string) {
    const waiting: ((result: ElicitResult) => void)[] = []
    const client = await open(clients['SDK v2, 2026-07-28']!, url, () => new Promise<ElicitResult>((resolve) => waiting.push(resolve)))
    expect(client.era).toBe('modern')
    return { client, waiting }
  }

  it('past maxPendingApprovals an ask is denied at once; the waiting call still runs when its user accepts', async () => {
    const { served, removed } = await servedRegistry({ maxPendingApprovals: 1 })
    const { client, waiting } = await heldClient(served.url)
    const first = client.call('rm', { path: '/tmp/first' })
    await until(() => waiting.length === 1, 10_000, 'the first approval request to reach the user')
    const second = await client.call('rm', { path: '/tmp/second' })
    expect(second.error).toEqual({ name: 'ToolDeniedError', code: 'APPROVAL_UNAVAILABLE' })
    expect(second.text).toContain('1 served calls already wait for their approval (maxPendingApprovals)')
    waiting[0]?.({ action: 'accept' })
    expect((await first).text).toBe('removed /tmp/first')
    expect(removed).toEqual(['/tmp/first'])
  })

  it('an answer later than approvalTimeoutMs finds the call denied (APPROVAL_UNAVAILABLE) and the retry is -32602', async () => {
    const { served, removed, results } = await servedRegistry({ approvalTimeoutMs: 200 })
    const { client, waiting } = await heldClient(served.url)
    const call = client.call('rm', { path: '/tmp/late' }).then(
      (result) => result,
      (thrown: unknown) => thrown,
    )
    await until(() => waiting.length === 1, 10_000, 'the approval request to reach the user')
    await until(() => results.length === 1, 10_000, 'the call to be denied for want of an answer')
    expect(results[0]?.error).toEqual({ name: 'ToolDeniedError', code: 'APPROVAL_UNAVAILABLE' })
    expect(results[0]?.content).toEqual([{ type: 'text', text: 'Approval for the call to "rm" is unavailable: the MCP client did not answer the approval request within 200 ms. It was not run.' }])
    waiting[0]?.({ action: 'accept' })
    const late = await call
    expect((late as { code?: number }).code).toBe(-32602)
    expect((late as Error).message).toContain('Invalid or expired requestState')
    expect(removed).toEqual([])
  })

  it('close() answers every waiting call: it is cancelled, never run', async () => {
    const { served, removed, results } = await servedRegistry()
    const { client, waiting } = await heldClient(served.url)
    void client.call('rm', { path: '/tmp/never' }).catch(() => {})
    await until(() => waiting.length === 1, 10_000, 'the approval request to reach the user')
    await served.close()
    await until(() => results.length === 1, 10_000, 'the waiting call to end')
    expect(results[0]?.error).toEqual({ name: 'ToolDeniedError', code: 'APPROVAL_CANCELLED' })
    expect(removed).toEqual([])
  })

  it('a 2025-era answer later than approvalTimeoutMs is a denial naming it', async () => {
    const { served, removed } = await servedRegistry({ approvalTimeoutMs: 200 })
    const waiting: ((result: ElicitResult) => void)[] = []
    const client = await open(clients['SDK v2, 2025 era']!, served.url, () => new Promise<ElicitResult>((resolve) => waiting.push(resolve)))
    const denied = await client.call('rm', { path: '/tmp/late' })
    expect(denied.error).toEqual({ name: 'ToolDeniedError', code: 'APPROVAL_UNAVAILABLE' })
    expect(denied.text).toMatch(/^Approval for the call to "rm" is unavailable: the MCP client did not answer the approval request \(.+\)\. It was not run\.$/)
    for (const release of waiting) release({ action: 'accept' })
    expect(removed).toEqual([])
  })
})

describe('createToolServer options', () => {
  async function context(): Promise<ToolTestContext> {
    const t = await createToolContext()
    cleanups.push(() => t.dispose())
    return t
  }

  it.each([
    [{ approvalTimeoutMs: 0 }, 'approvalTimeoutMs: must be a positive integer of at most 2147483647 ms, got 0'],
    [{ approvalTimeoutMs: 2_147_483_648 }, 'approvalTimeoutMs: must be a positive integer of at most 2147483647 ms, got 2147483648'],
    [{ maxPendingApprovals: 1.5 }, 'maxPendingApprovals: must be a positive integer, got 1.5'],
    [{ approval: 'person' }, `approval: must be 'client' or 'host', got "person"`],
  ])('%j is an McpConfigError', async (options, issue) => {
    const t = await context()
    const thrown = (() => {
      try {
        createToolServer(t.ctx, options as never)
      } catch (error) {
        return error
      }
      return undefined
    })()
    expect(McpConfigError.isInstance(thrown)).toBe(true)
    expect((thrown as McpConfigError).issues).toEqual([issue])
    await expect(serveToolsHttp(t.ctx, options as never)).rejects.toThrow(issue)
  })

  it("approval: 'host' keeps asks with the registry's toolApproval service (no agent: APPROVAL_NO_AGENT), never the client", async () => {
    const { served } = await servedRegistry({ approval: 'host', agent: undefined })
    const asked: unknown[] = []
    const client = await open(clients['SDK v2, 2025 era']!, served.url, () => (asked.push(1), { action: 'accept' }))
    expect((await client.call('rm', { path: '/tmp/a' })).error).toEqual({ name: 'ToolDeniedError', code: 'APPROVAL_NO_AGENT' })
    expect(asked).toEqual([])
  })
})
