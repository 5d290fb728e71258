/**
 * Checks of the ACP mapping against the protocol itself, not against expectations written here:
 * 1. every message the mapping produces validates, with ajv, against the JSON Schema shipped in
 *    `@agentclientprotocol/sdk` (`schema/v1/schema.json`);
 * 2. the same messages travel from the SDK's agent side to its client side over an in-memory stream and arrive
 *    intact (the client parses every notification with the SDK's own schemas, which drop unknown fields and
 *    invalid values, so anything outside the protocol would show up as a difference).
 * The corpus covers every card kind, both terminal-capability settings, and the fallbacks.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { agent, client, ndJsonStream, PROTOCOL_VERSION, type SessionNotification } from '@agentclientprotocol/sdk'
import type { ToolResult } from '@dsh/tools-core'
import { Ajv2020, type AnySchemaObject, type ValidateFunction } from 'ajv/dist/2020.js'
import { describe, expect, it } from 'vitest'
import { clientSupportsTerminalOutput, toAcpSessionNotification, toAcpToolCall, toAcpToolCallUpdate } from './acp-mapping.js'
import type { AcpSessionNotification } from './acp-types.js'
import { codeCall, codeResult, diffCall, diffResult, fileDiff, genericCall, genericResult, terminalCall, terminalResult } from './card-builders.js'
import { presentToolCall, presentToolResult, type PresentableTool } from './present-tool.js'
import { terminalResultFromMeta, terminalResultMeta } from './terminal-result-meta.js'

const SESSION_CWD = '/work/app'

interface Scenario {
  readonly id: string
  readonly tool: PresentableTool
  readonly args: unknown
  readonly result: ToolResult
}

const text = (value: string): ToolResult['content'][number] => ({ type: 'text', text: value })

const bash: PresentableTool = {
  name: 'bash',
  presentCall: (args) => {
    const { command, description } = args as { command: string; description?: string }
    return terminalCall({ title: command, description, cwd: SESSION_CWD })
  },
  presentResult: (_args, result) => terminalResultFromMeta(result),
}

const edit: PresentableTool = {
  name: 'edit_file',
  presentCall: (args) => {
    const { path, oldText, newText } = args as { path: string; oldText: string | null; newText: string }
    return diffCall({ title: `Edit ${path}`, diffs: [fileDiff(path, oldText, newText)] })
  },
  presentResult: (args) => {
    const { path, oldText, newText } = args as { path: string; oldText: string | null; newText: string }
    return diffResult({ title: `Edited ${path}`, diffs: [fileDiff(path, oldText, newText)] })
  },
}

/** Every card kind, and every fallback, as tool calls a session might see. */
const scenarios: Scenario[] = [
  {
    id: 'generic-all-blocks',
    tool: {
      name: 'read_file',
      presentCall: (args) =>
        genericCall({
          title: `Read ${(args as { path: string }).path}`,
          kind: 'read',
          rawInput: args,
          content: [
            { type: 'text', text: 'Reading…', annotations: { audience: ['user'], priority: 0.5, lastModified: '2025-06-01T10:00:00Z' } },
            { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
            { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
            {
              type: 'resource_link',
              uri: 'file:///work/app/README.md',
              name: 'README.md',
              title: 'Readme',
              description: 'd',
              mimeType: 'text/markdown',
              size: 120,
            },
            { type: 'resource', resource: { uri: 'file:///work/app/a.txt', mimeType: 'text/plain', text: 'a' } },
            { type: 'resource', resource: { uri: 'file:///work/app/b.bin', blob: 'AAE=' } },
          ],
          locations: [{ path: '/work/app/README.md', line: 1 }, { path: 'src/index.ts' }],
        }),
      presentResult: (_args, result) => genericResult({ title: 'Read /work/app/README.md (12 lines)', content: result.content }),
    },
    args: { path: '/work/app/README.md' },
    result: { content: [text('# App')], isError: false },
  },
  {
    id: 'generic-fallback-no-presenters',
    tool: { name: 'echo' },
    args: { text: 'hi', nested: { list: [1, 2, null] } },
    result: { content: [text('hi')], isError: false },
  },
  {
    id: 'generic-fallback-throwing-presenters',
    tool: {
      name: 'flaky',
      presentCall: () => {
        throw new Error('presenter bug')
      },
      presentResult: () => {
        throw new Error('presenter bug')
      },
    },
    args: {},
    result: { content: [text('done')], isError: false },
  },
  {
    id: 'generic-fallback-malformed-card',
    tool: {
      name: 'chart',
      presentCall: () => ({ card: 'chart', title: 'pie' }) as never,
      presentResult: () => ({ card: 'diff' }) as never,
    },
    args: { values: [1, 2] },
    result: { content: [], isError: false },
  },
  {
    id: 'generic-failed',
    tool: { name: 'fetch', presentCall: () => genericCall({ title: 'Fetch https://example.com', kind: 'fetch' }) },
    args: { url: 'https://example.com' },
    result: { content: [text('ECONNREFUSED')], isError: true },
  },
  {
    id: 'terminal-exit-0-with-marker-text',
    tool: bash,
    args: { command: 'ls /work/app/src', description: 'List sources' },
    result: { content: [text('a.ts\nb.ts\n[exit code: 3]\n')], isError: false, meta: terminalResultMeta({ exitCode: 0, durationMs: 12 }) },
  },
  {
    id: 'terminal-signal-timeout',
    tool: bash,
    args: { command: 'sleep 1000' },
    result: {
      content: [text('[timed out after 120000ms]')],
      isError: false,
      meta: terminalResultMeta({ exitCode: null, signal: 'SIGTERM', timedOut: true }),
    },
  },
  {
    id: 'terminal-no-meta-empty-output',
    tool: bash,
    args: { command: 'true' },
    result: { content: [], isError: false },
  },
  {
    id: 'terminal-result-of-generic-call',
    tool: {
      name: 'run_script',
      presentCall: () => genericCall({ title: 'Run script', kind: 'execute' }),
      presentResult: () => terminalResult({ output: 'ok\n', exitCode: 0, signal: null, timedOut: false }),
    },
    args: { script: 'build' },
    result: { content: [text('ok')], isError: false },
  },
  {
    id: 'diff-modify',
    tool: edit,
    args: { path: '/work/app/src/a.ts', oldText: 'export const a = 1\n', newText: 'export const a = 2\n' },
    result: { content: [text('Edited.')], isError: false },
  },
  {
    id: 'diff-create-relative-path',
    tool: edit,
    args: { path: 'notes/new.md', oldText: null, newText: '# New\n' },
    result: { content: [text('Created.')], isError: false },
  },
  {
    id: 'code-run-with-sub-calls',
    tool: {
      name: 'run_code',
      presentCall: (args) => codeCall({ title: 'Sum the sizes', language: 'typescript', ...(args as { code: string; description: string }) }),
      presentResult: () =>
        codeResult({
          status: 'error',
          error: 'CODE_RUN_FAILED: x is not a function (line 2)',
          durationMs: 812,
          logs: 'reading 2 files\n```\n',
          value: '{\n  "total": 42\n}',
          subCalls: [
            { callId: 'code-run-with-sub-calls:code:1', name: 'glob', isError: false },
            { callId: 'code-run-with-sub-calls:code:2', name: 'write_file', isError: true, code: 'DENIED' },
          ],
        }),
    },
    args: { code: 'const files = await tools.glob({ pattern: "*.ts" })\nreturn files.length', description: 'Count the sources' },
    result: { content: [text('The program failed (error)')], isError: true },
  },
  {
    id: 'diff-call-generic-result',
    tool: { name: 'patch', presentCall: edit.presentCall!, presentResult: () => undefined },
    args: { path: '/work/app/x', oldText: 'x', newText: 'y' },
    result: { content: [text('patched')], isError: false },
  },
]

/** The `session/update` notifications one session sends for the scenarios, with or without terminal support. */
function buildCorpus(sessionId: string, terminalOutput: boolean): AcpSessionNotification[] {
  const options = { cwd: SESSION_CWD, terminalOutput }
  return scenarios.flatMap((scenario) => {
    const call = presentToolCall(scenario.tool, scenario.args)
    const view = presentToolResult(scenario.tool, scenario.args, scenario.result)
    const toolCallId = scenario.id
    const started = toAcpToolCall({ toolCallId, view: call, name: scenario.tool.name, rawInput: scenario.args }, options)
    const finished = toAcpToolCallUpdate({ toolCallId, call, view, result: scenario.result }, options)
    return [toAcpSessionNotification(sessionId, started), toAcpSessionNotification(sessionId, finished)]
  })
}

function loadAcpSchema(): AnySchemaObject {
  const require = createRequire(import.meta.url)
  const path = require.resolve('@agentclientprotocol/sdk/schema/v1/schema.json')
  return JSON.parse(readFileSync(path, 'utf8')) as AnySchemaObject
}

/** The `x-…` annotation keywords the schema uses: declared to ajv so strict mode accepts them and nothing else. */
function annotationKeywords(schema: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) {
    for (const item of schema) annotationKeywords(item, found)
  } else if (typeof schema === 'object' && schema !== null) {
    for (const [key, value] of Object.entries(schema)) {
      if (key.startsWith('x-')) found.add(key)
      annotationKeywords(value, found)
    }
  }
  return found
}

function createValidators(): { message: ValidateFunction; sessionUpdate: ValidateFunction } {
  const schema = loadAcpSchema()
  // The schema declares draft 2020-12, so the 2020 build of ajv, strict, with the OpenAPI `discriminator` keyword
  // the schema uses, and real checks for the numeric formats it names.
  expect(schema['$schema']).toBe('https://json-schema.org/draft/2020-12/schema')
  const ajv = new Ajv2020({ strict: true, strictTypes: false, allErrors: true, discriminator: true })
  ajv.addVocabulary([...annotationKeywords(schema)])
  const integer = (min: number, max: number) => ({
    type: 'number' as const,
    validate: (n: number) => Number.isInteger(n) && n >= min && n <= max,
  })
  ajv.addFormat('int32', integer(-(2 ** 31), 2 ** 31 - 1))
  ajv.addFormat('uint16', integer(0, 2 ** 16 - 1))
  ajv.addFormat('uint32', integer(0, 2 ** 32 - 1))
  ajv.addFormat('int64', integer(-(2 ** 63), 2 ** 63))
  ajv.addFormat('uint64', integer(0, 2 ** 64))
  ajv.addFormat('double', { type: 'number', validate: (n: number) => Number.isFinite(n) })
  ajv.addFormat('uri', { type: 'string', validate: (value: string) => URL.canParse(value) })
  ajv.addSchema(schema, 'acp')
  const message = ajv.getSchema('acp')!
  // The root schema lets any notification params through its extension branch (`ExtNotification` is `{}`), so
  // each notification is also checked against the definition the schema itself names for `session/update`.
  const defs = schema['$defs'] as Record<string, AnySchemaObject>
  const [updateDef] = Object.entries(defs).find(([, def]) => def['x-method'] === 'session/update') ?? []
  expect(updateDef).toBe('SessionNotification')
  const sessionUpdate = ajv.getSchema(`acp#/$defs/${updateDef}`)!
  return { message, sessionUpdate }
}

describe('ACP schema conformance (ajv against the SDK JSON Schema)', () => {
  const validators = createValidators()
  const check = (notification: unknown): string[] => {
    const problems: string[] = []
    if (!validators.sessionUpdate(notification)) problems.push(JSON.stringify(validators.sessionUpdate.errors))
    if (!validators.message({ jsonrpc: '2.0', method: 'session/update', params: notification })) {
      problems.push(JSON.stringify(validators.message.errors))
    }
    return problems
  }

  for (const terminalOutput of [true, false]) {
    it(`every notification validates (terminal support ${terminalOutput ? 'on' : 'off'})`, () => {
      const corpus = buildCorpus('sess_1', terminalOutput)
      expect(corpus).toHaveLength(scenarios.length * 2)
      for (const notification of corpus) expect(check(notification), JSON.stringify(notification)).toEqual([])
    })
  }

  it('covers every card kind and both terminal renderings', () => {
    const on = buildCorpus('s', true).map((notification) => notification.update)
    const off = buildCorpus('s', false).map((notification) => notification.update)
    const contentTypes = new Set([...on, ...off].flatMap((update) => (update.content ?? []).map((item) => item.type)))
    expect(contentTypes).toEqual(new Set(['content', 'diff', 'terminal']))
    expect(on.some((update) => update._meta?.terminal_info !== undefined)).toBe(true)
    expect(on.some((update) => update._meta?.terminal_exit !== undefined && update.content === undefined)).toBe(true)
    expect(off.some((update) => update._meta !== undefined)).toBe(false)
    // The code card's program and its sub-call list (the scenario's presenters did not fall back to generic).
    const texts = off.flatMap((update) => (update.content ?? []).flatMap((item) => (item.type === 'content' && item.content.type === 'text' ? [item.content.text] : [])))
    expect(texts.filter((text) => text.startsWith('```ts\n'))).toHaveLength(2)
    expect(texts).toContain('Sub-calls:\n\n- ✓ `glob`\n- ✗ `write_file` DENIED')
    expect(new Set(on.filter((update) => update.sessionUpdate === 'tool_call').map((update) => update.kind))).toEqual(
      new Set(['read', 'other', 'fetch', 'execute', 'edit']),
    )
  })

  it('puts the terminal _meta convention in the shape clients read', () => {
    // `_meta` is an open object in the protocol schema, so the convention (as Zed's client reads it) is checked
    // with a closed schema of its own: ids match the call, and nothing else rides along.
    const ajv = new Ajv2020({ strict: true, allErrors: true })
    const closed = (properties: Record<string, unknown>, required: string[]) => ({
      type: 'object',
      properties,
      required,
      additionalProperties: false,
    })
    const nullable = (type: string) => ({ type: [type, 'null'] })
    const validateMeta = ajv.compile({
      ...closed(
        {
          terminal_info: closed({ terminal_id: { type: 'string' }, cwd: { type: 'string' } }, ['terminal_id']),
          terminal_output: closed({ terminal_id: { type: 'string' }, data: { type: 'string', minLength: 1 } }, ['terminal_id', 'data']),
          terminal_exit: closed({ terminal_id: { type: 'string' }, exit_code: nullable('integer'), signal: nullable('string') }, [
            'terminal_id',
            'exit_code',
            'signal',
          ]),
        },
        [],
      ),
      minProperties: 1,
    })
    let checked = 0
    for (const { update } of buildCorpus('s', true)) {
      if (update._meta === undefined) continue
      checked += 1
      expect(validateMeta(update._meta), JSON.stringify(validateMeta.errors)).toBe(true)
      for (const entry of Object.values(update._meta)) expect(entry.terminal_id).toBe(update.toolCallId)
      if (update.sessionUpdate === 'tool_call') {
        expect(update.content).toContainEqual({ type: 'terminal', terminalId: update.toolCallId })
      } else {
        expect(update).not.toHaveProperty('content')
        expect(update._meta.terminal_exit).toBeDefined()
      }
    }
    expect(checked).toBe(6)
  })

  it('is not vacuous: broken updates are rejected', () => {
    const [call, update] = buildCorpus('s', true)
    const broken: unknown[] = [
      { ...call, update: { ...call!.update, kind: 'chart' } },
      { ...call, update: { ...call!.update, title: undefined } },
      { ...call, update: { ...call!.update, content: [{ type: 'diff', path: '/a' }] } },
      { ...call, update: { ...call!.update, content: [{ type: 'terminal' }] } },
      { ...call, update: { ...call!.update, content: [{ type: 'content', content: { type: 'text' } }] } },
      { ...call, update: { ...call!.update, locations: [{ path: '/a', line: -1 }] } },
      { ...update, update: { ...update!.update, status: 'done' } },
      { ...update, update: { ...update!.update, toolCallId: 7 } },
      { sessionId: 's' },
    ]
    for (const notification of broken) expect(validators.sessionUpdate(notification), JSON.stringify(notification)).toBe(false)
  })
})

describe('ACP end to end (SDK agent → in-memory stream → SDK client)', () => {
  async function runSession(announceTerminal: boolean): Promise<{ sent: AcpSessionNotification[]; received: SessionNotification[] }> {
    const sent: AcpSessionNotification[] = []
    let terminalOutput = false
    const sessionId = `sess_${announceTerminal ? 'term' : 'plain'}`

    const agentApp = agent({ name: 'dsh-test-agent' })
      .onRequest('initialize', ({ params }) => {
        terminalOutput = clientSupportsTerminalOutput(params.clientCapabilities)
        return { protocolVersion: PROTOCOL_VERSION, agentCapabilities: {} }
      })
      .onRequest('session/new', ({ params }) => {
        expect(params.cwd).toBe(SESSION_CWD)
        return { sessionId }
      })
      .onRequest('session/prompt', async ({ params, client: toClient }) => {
        for (const notification of buildCorpus(params.sessionId, terminalOutput)) {
          sent.push(notification)
          await toClient.notify('session/update', notification)
        }
        return { stopReason: 'end_turn' }
      })

    const toClient = new TransformStream<Uint8Array, Uint8Array>()
    const toAgent = new TransformStream<Uint8Array, Uint8Array>()
    const agentConnection = agentApp.connect(ndJsonStream(toClient.writable, toAgent.readable))
    const received: SessionNotification[] = []
    try {
      await client({ name: 'dsh-test-client' }).connectWith(ndJsonStream(toAgent.writable, toClient.readable), async (context) => {
        await context.request('initialize', {
          protocolVersion: PROTOCOL_VERSION,
          clientCapabilities: { terminal: true, ...(announceTerminal ? { _meta: { terminal_output: true } } : {}) },
        })
        await context.buildSession(SESSION_CWD).withSession(async (session) => {
          const done = session.prompt('run the scenarios')
          for (;;) {
            const message = await session.nextUpdate()
            if (message.kind === 'stop') break
            received.push(message.notification)
          }
          expect((await done).stopReason).toBe('end_turn')
        })
      })
    } finally {
      agentConnection.close()
    }
    return { sent, received }
  }

  for (const announceTerminal of [true, false]) {
    it(`delivers every mapped update intact (client ${announceTerminal ? 'announces' : 'does not announce'} terminal_output)`, async () => {
      const { sent, received } = await runSession(announceTerminal)
      expect(sent).toHaveLength(scenarios.length * 2)
      expect(received).toEqual(sent)
      const metas = received.map((notification) => notification.update).filter((update) => '_meta' in update && update._meta != null)
      expect(metas.length > 0).toBe(announceTerminal)
    })
  }
})
