import { SNAPSHOT_PROTOTYPE, toJsonValue, type ToolExecution, type ToolResult } from '@dsh/tools-core'
import { describe, expect, test, vi } from 'vitest'
import { defineTool, MAX_TIMEOUT_MS, type ToolSpec } from './define-tool.js'
import { JsonSchemaError } from './json-schema-error.js'
import type { ParameterSchemaSpec, ValueSchemaSpec } from './schema-spec.js'
import { ToolArgsError } from './tool-args-error.js'
import { ToolDefinitionError } from './tool-definition-error.js'
import { ToolOutputError } from './tool-output-error.js'
import { execution } from './test-support.js'

/** Calls `defineTool` with an untyped spec and returns the thrown error. */
function definitionError(spec: Record<string, unknown>): unknown {
  try {
    defineTool(spec as unknown as ToolSpec<ParameterSchemaSpec>)
  } catch (error) {
    return error
  }
  throw new Error('defineTool accepted the spec')
}

function problems(error: unknown): string[] {
  if (ToolDefinitionError.isInstance(error) || JsonSchemaError.isInstance(error)) {
    return error.problems.map((problem) => `${problem.path}: ${problem.message}`)
  }
  throw error
}

const minimal = { name: 'noop', description: 'Does nothing.', parameters: {}, execute: () => 'ok' }

describe('the definition', () => {
  test('seed 003 greet: a frozen ToolDefinition with the JSON Schema of its parameters', async () => {
    const greet = defineTool({
      name: 'greet',
      description: 'Greet someone by name.',
      parameters: { name: { type: 'string', required: true, description: 'The name to greet' } },
      output: { schema: { type: 'string' }, render: (_args, value) => [{ type: 'text', text: value }] },
      async execute(args) {
        return `Hello, ${args.name}!`
      },
    })
    expect(greet.name).toBe('greet')
    expect(greet.description).toBe('Greet someone by name.')
    expect(greet.parameters).toEqual({
      type: 'object',
      properties: { name: { type: 'string', description: 'The name to greet' } },
      required: ['name'],
    })
    expect(Object.isFrozen(greet)).toBe(true)
    expect(Object.isFrozen(greet.parameters.properties)).toBe(true)
    expect(Object.keys(greet).sort()).toEqual(['description', 'execute', 'invoke', 'name', 'parameters', 'validateArguments'])
    const result = await greet.execute({ name: 'Ada' }, execution('greet', { name: 'Ada' }))
    // The canonical value is structuredContent, not meta: without presentationMeta there is no meta.
    expect(result).toEqual({ content: [{ type: 'text', text: 'Hello, Ada!' }], structuredContent: 'Hello, Ada!' })
  })

  test('timeoutMs and concurrencySafe pass through', () => {
    const tool = defineTool({ ...minimal, timeoutMs: 30_000, concurrencySafe: true })
    expect(tool.timeoutMs).toBe(30_000)
    expect(tool.concurrencySafe).toBe(true)
    expect(defineTool({ ...minimal, timeoutMs: MAX_TIMEOUT_MS }).timeoutMs).toBe(2_147_483_647)
    expect('timeoutMs' in defineTool(minimal)).toBe(false)
  })

  test('title and annotations pass through as declared, frozen and detached, never into the parameters', () => {
    const hints = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false }
    const tool = defineTool({ ...minimal, title: 'Do nothing', annotations: hints })
    expect(tool.title).toBe('Do nothing')
    expect(tool.annotations).toEqual(hints)
    expect(Object.isFrozen(tool.annotations)).toBe(true)
    hints.destructiveHint = false
    expect(tool.annotations?.destructiveHint).toBe(true)
    expect(tool.parameters).toEqual({ type: 'object', properties: {} })
    // Absent when not declared: nothing is derived (concurrencySafe is no readOnlyHint).
    const plain = defineTool({ ...minimal, concurrencySafe: true })
    expect('title' in plain || 'annotations' in plain).toBe(false)
    // Only the hints declared, and an annotation title too.
    expect(defineTool({ ...minimal, annotations: { readOnlyHint: true, title: 'Nothing' } }).annotations).toEqual({ readOnlyHint: true, title: 'Nothing' })
  })

  test('a wrong title or annotations field is a definition problem naming it', () => {
    const error = definitionError({
      ...minimal,
      title: '  ',
      annotations: { readOnlyHint: 'yes', destructive: true, title: 3, openWorldHint: null },
    })
    expect(problems(error)).toEqual([
      'title: must be a non-empty string, got the string "  "',
      'annotations.readOnlyHint: must be a boolean, got the string "yes"',
      'annotations.destructive: unknown field "destructive" (allowed: title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint)',
      'annotations.title: must be a non-empty string, got the number 3',
      'annotations.openWorldHint: must be a boolean, got null',
    ])
    expect(problems(definitionError({ ...minimal, annotations: [true] }))).toEqual(['annotations: must be an object of MCP hints, got an array'])
    // A hostile annotations object is read once, field by field, and never throws raw.
    const hostile = new Proxy({}, { ownKeys: () => { throw new Error('trap') } })
    expect(problems(definitionError({ ...minimal, annotations: hostile }))).toEqual(['annotations: reading it threw: trap'])
  })

  test.each(['a', '_', 'read_file', 'Bash-2', `x${'y'.repeat(63)}`])('the name %j is accepted', (name) => {
    expect(defineTool({ ...minimal, name }).name).toBe(name)
  })

  test.each(['', '1tool', 'read file', 'ünïcode', `x${'y'.repeat(64)}`, 'a.b', 42])('the name %j is rejected', (name) => {
    const error = definitionError({ ...minimal, name })
    expect(ToolDefinitionError.isInstance(error) && error.code).toBe('INVALID_TOOL_DEFINITION')
    expect(problems(error)).toHaveLength(1)
    expect(problems(error)[0]).toMatch(/^name: must match \/\^\[A-Za-z_\]\[A-Za-z0-9_-\]\{0,63\}\$\//)
  })

  test.each([0, -1, 1.5, MAX_TIMEOUT_MS + 1, Number.NaN, Number.POSITIVE_INFINITY, '1000'])('timeoutMs %j is rejected', (timeoutMs) => {
    expect(problems(definitionError({ ...minimal, timeoutMs }))).toEqual([
      expect.stringMatching(/^timeoutMs: must be a positive integer of milliseconds ≤ 2147483647, got /),
    ])
  })

  test('every problem of the definition at once, schema problems included', () => {
    const error = definitionError({
      name: 'bad name',
      description: '',
      parameters: { path: { type: 'string', pattern: '(' } },
      output: { schema: { type: 'object' }, render: 'text', format: 'md' },
      concurrencySafe: 'yes',
      presentCall: {},
      timeout: 5,
    })
    expect(ToolDefinitionError.isInstance(error)).toBe(true)
    expect((error as ToolDefinitionError).toolName).toBe('bad name')
    expect(problems(error)).toEqual([
      'timeout: unknown field "timeout" (allowed: name, description, parameters, output, execute, timeoutMs, concurrencySafe, title, annotations, presentCall, presentResult, execution)',
      'name: must match /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/, got the string "bad name"',
      'description: must be a non-empty string, got the string ""',
      'execute: must be a function, got undefined (not JSON)',
      'concurrencySafe: must be a boolean, got the string "yes"',
      'presentCall: must be a function, got an object',
      'output.format: unknown field "format" (allowed: schema, render, presentationMeta)',
      'output.render: must be a function, got the string "text"',
      'parameters.path.pattern: pattern "(" does not compile as an ECMA-262 regular expression with the u flag: Invalid regular expression: /(/u: Unterminated group',
      'output.schema: an object must say additionalProperties: true (other keys allowed, any JSON) or false (no other keys)',
    ])
  })

  test('only schema problems: a JsonSchemaError with paths from the definition', () => {
    const error = definitionError({
      ...minimal,
      parameters: { mode: { type: 'string', enum: [] } },
      output: { schema: { type: 'array', items: { type: 'date' } }, render: () => '' },
    })
    expect(JsonSchemaError.isInstance(error) && error.code).toBe('UNSUPPORTED_SCHEMA')
    expect(problems(error)).toEqual([
      'parameters.mode.enum: an empty enum allows nothing',
      'output.schema.items.type: unknown type "date"; expected one of string, number, integer, boolean, null, object, array, json',
    ])
  })

  test('a spec that is not an object', () => {
    expect(problems(definitionError(null as unknown as Record<string, unknown>))).toEqual([': expected a tool spec object, got null'])
  })
})

const servers = {
  name: 'connect',
  description: 'Connect to servers.',
  parameters: {
    servers: {
      type: 'array',
      required: true,
      items: {
        type: 'object',
        additionalProperties: false,
        properties: { host: { type: 'string', required: true }, port: { type: 'integer' } },
      },
    },
  },
} as const satisfies Partial<ToolSpec<ParameterSchemaSpec>>

describe('execute', () => {

  test('arguments are validated before the body runs', async () => {
    const body = vi.fn(() => 'connected')
    const tool = defineTool({ ...servers, execute: body })
    const args = { servers: [{ host: 'a' }, { host: 2, port: 'x' }] }
    const failure = await tool.execute(args, execution('connect', args)).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(body).not.toHaveBeenCalled()
    expect(ToolArgsError.isInstance(failure)).toBe(true)
    const error = failure as ToolArgsError
    expect(error.code).toBe('INVALID_ARGS')
    expect(error.toolName).toBe('connect')
    expect(error.message).toBe(
      'Invalid arguments for tool "connect" (2 problems):\n' +
        '- servers[1].host: expected a string, got the number 2\n' +
        '- servers[1].port: expected an integer, got the string "x"\n' +
        'Fix the arguments to match the parameter schema and call "connect" again.',
    )
    expect(error.toInfo()).toEqual({ name: 'ToolArgsError', code: 'INVALID_ARGS' })
  })

  test('arguments that arrive as a JSON string are reported as not an object, and not parsed', async () => {
    const body = vi.fn(() => 'connected')
    const tool = defineTool({ ...servers, execute: body })
    const args = '{"servers":[]}'
    const failure = await tool.execute(args, execution('connect', args)).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(body).not.toHaveBeenCalled()
    expect((failure as ToolArgsError).message).toBe(
      'Invalid arguments for tool "connect" (1 problem):\n' +
        '- (root): the arguments must be a JSON object; they arrived as a string ("{\\"servers\\":[]}"), which holds JSON ' +
        'object text that was never parsed\n' +
        'Fix the arguments to match the parameter schema and call "connect" again.',
    )
  })

  test('the body gets a snapshot (the registry\'s own, itself), the execution, and the spec as this', async () => {
    const received: unknown[] = []
    const spec = {
      ...servers,
      execute(this: unknown, args: unknown, exec: ToolExecution) {
        expect(this).toBe(spec)
        expect(exec.callId).toBe('call_1')
        received.push(args)
        return [{ type: 'text' as const, text: 'ok' }]
      },
    }
    const tool = defineTool(spec)
    const snapshot = toJsonValue({ servers: [{ host: 'h', port: 1 }] })
    expect(await tool.execute(snapshot, execution('connect', snapshot))).toEqual([{ type: 'text', text: 'ok' }])
    expect(received[0]).toBe(snapshot)
    // Anything else (a direct call with an ordinary object) is snapshotted first: detached, frozen, inheriting nothing.
    const input = { servers: [{ host: 'h', port: 1 }] }
    await tool.execute(input, execution('connect', input))
    expect(received[1]).not.toBe(input)
    expect(received[1]).toEqual(input)
    expect(Object.isFrozen(received[1])).toBe(true)
    expect(Object.getPrototypeOf(received[1])).toBe(SNAPSHOT_PROTOTYPE)
    input.servers[0]!.host = 'changed'
    expect(received[1]).toEqual({ servers: [{ host: 'h', port: 1 }] })
  })

  test('content form: a string, blocks, { content, meta }', async () => {
    const run = (execute: () => unknown) =>
      defineTool({ ...minimal, execute } as unknown as ToolSpec<ParameterSchemaSpec>).execute({}, execution('noop', {}))
    expect(await run(() => 'text')).toEqual([{ type: 'text', text: 'text' }])
    expect(await run(async () => [{ type: 'image', data: 'AA==', mimeType: 'image/png' }])).toEqual([
      { type: 'image', data: 'AA==', mimeType: 'image/png' },
    ])
    expect(await run(() => ({ content: 'x'.split('').map((text) => ({ type: 'text', text })), meta: { exit: 0 } }))).toEqual({
      content: [{ type: 'text', text: 'x' }],
      meta: { exit: 0 },
    })
    expect(await run(() => ({ content: [] }))).toEqual([])
  })

  test('content form: anything else is INVALID_TOOL_OUTPUT', async () => {
    const run = (execute: () => unknown) =>
      defineTool({ ...minimal, execute } as unknown as ToolSpec<ParameterSchemaSpec>)
        .execute({}, execution('noop', {}))
        .then(
          () => undefined,
          (error: unknown) => error as ToolOutputError,
        )
    const numeric = await run(() => 42)
    expect(ToolOutputError.isInstance(numeric) && numeric.code).toBe('INVALID_TOOL_OUTPUT')
    expect(numeric?.message).toBe(
      'Tool "noop" produced an invalid result (1 problem):\n' +
        '- (root): expected content blocks, a string or { content, meta }, got the number 42\n' +
        'This is a defect in the tool, not in the call.',
    )
    expect((await run(() => [{ type: 'text', text: 'a' }, 'b']))?.violations[0]?.path).toBe('[1]')
    expect((await run(() => ({ content: [{ kind: 'text' }] })))?.violations[0]).toMatchObject({ path: 'content[0]', segments: ['content', 0] })
    expect((await run(() => undefined))?.violations[0]?.message).toMatch(/got undefined/)
  })

  test('output form: the value is validated, rendered, and returned as structuredContent (a detached frozen copy)', async () => {
    const files = ['a.ts', 'b.ts']
    const tool = defineTool({
      name: 'count_files',
      description: 'Count files.',
      parameters: { path: { type: 'string', required: true } },
      output: {
        schema: {
          type: 'object',
          additionalProperties: false,
          properties: { count: { type: 'integer', required: true }, files: { type: 'array', required: true, items: { type: 'string' } } },
        },
        render: (_args, value) => `Found ${value.count} files.`,
      },
      execute: async () => ({ count: files.length, files }),
    })
    const result = await tool.execute({ path: '/src' }, execution('count_files', { path: '/src' }))
    expect(result).toEqual({ content: [{ type: 'text', text: 'Found 2 files.' }], structuredContent: { count: 2, files: ['a.ts', 'b.ts'] } })
    const value0 = (result as { structuredContent: { files: string[] } }).structuredContent
    expect(value0.files).not.toBe(files)
    expect(Object.isFrozen(value0.files)).toBe(true)
    const value = await tool.invoke({ path: '/src' }, execution('count_files', { path: '/src' }))
    expect(value).toEqual({ count: 2, files: ['a.ts', 'b.ts'] })
  })

  test('output form: a value that does not match, or is not JSON, is INVALID_TOOL_OUTPUT', async () => {
    const make = (value: unknown, schema: ValueSchemaSpec = { type: 'object', additionalProperties: false, properties: { n: { type: 'integer', required: true } } }) =>
      defineTool({ ...minimal, output: { schema, render: () => 'rendered' }, execute: () => value } as unknown as ToolSpec<ParameterSchemaSpec, ValueSchemaSpec>)
    const fail = (value: unknown, schema?: ValueSchemaSpec) =>
      make(value, schema)
        .execute({}, execution('noop', {}))
        .then(
          () => undefined,
          (error: unknown) => error as ToolOutputError,
        )
    expect((await fail({ n: 1.5 }))?.violations).toEqual([
      { path: 'n', segments: ['n'], keyword: 'type', message: 'expected an integer, got the number 1.5' },
    ])
    expect((await fail({ n: 1, when: new Date(0) }))?.violations).toEqual([
      { path: 'when', segments: ['when'], keyword: 'json', message: 'is not lossless JSON: a Date is not JSON (only plain objects and arrays are)' },
    ])
    expect((await fail(undefined, { type: 'json' }))?.message).toContain('(root): is not lossless JSON: undefined is not JSON')
  })

  test('output form: presentationMeta(args, value) becomes meta, a detached frozen JSON snapshot', async () => {
    const shown = { path: '/src', names: ['a.ts'] }
    const tool = defineTool({
      name: 'count_files',
      description: 'Count files.',
      parameters: { path: { type: 'string', required: true } },
      output: {
        schema: { type: 'array', items: { type: 'string' } },
        render: (_args, value) => `Found ${value.length} files.`,
        presentationMeta: (args, value) => {
          shown.path = args.path
          shown.names = value.slice(0, 1)
          return shown
        },
      },
      execute: () => ['a.ts', 'b.ts'],
    })
    const result = (await tool.execute({ path: '/src' }, execution('count_files', { path: '/src' }))) as { meta: unknown; structuredContent: unknown }
    expect(result).toEqual({ content: [{ type: 'text', text: 'Found 2 files.' }], meta: { path: '/src', names: ['a.ts'] }, structuredContent: ['a.ts', 'b.ts'] })
    expect(result.meta).not.toBe(shown)
    expect(Object.isFrozen(result.meta)).toBe(true)
  })

  test('output form: a presentationMeta that is not lossless JSON is INVALID_TOOL_OUTPUT naming it', async () => {
    const tool = defineTool({
      ...minimal,
      output: { schema: { type: 'string' }, render: (_args, value) => value, presentationMeta: () => ({ when: new Date(0) }) },
      execute: () => 'x',
    })
    const error = await tool.execute({}, execution('noop', {})).then(
      () => undefined,
      (thrown: unknown) => thrown as ToolOutputError,
    )
    expect(ToolOutputError.isInstance(error)).toBe(true)
    expect(error?.code).toBe('INVALID_TOOL_OUTPUT')
    expect(error?.violations[0]).toMatchObject({ path: 'when', keyword: 'json' })
    expect(error?.violations[0]?.message).toMatch(/^presentationMeta: is not lossless JSON/)
  })

  test('output.presentationMeta must be a function', () => {
    const error = definitionError({ ...minimal, output: { schema: { type: 'string' }, render: () => '', presentationMeta: 'meta' } })
    expect(problems(error)).toEqual(['output.presentationMeta: must be a function, got the string "meta"'])
  })

  test('output form: render must return content', async () => {
    const tool = defineTool({
      ...minimal,
      output: { schema: { type: 'string' }, render: () => 7 as unknown as string },
      execute: () => 'x',
    })
    await expect(tool.execute({}, execution('noop', {}))).rejects.toThrow(
      '- (root): render: expected content blocks or a string, got the number 7',
    )
  })

  test('content form: a structuredContent is refused (the canonical value comes from a declared, validated output)', async () => {
    const tool = defineTool({ ...minimal, execute: () => ({ content: [], structuredContent: { unchecked: true } }) as never })
    const error = await tool.execute({}, execution('noop', {})).then(
      () => undefined,
      (thrown: unknown) => thrown as ToolOutputError,
    )
    expect(error?.code).toBe('INVALID_TOOL_OUTPUT')
    expect(error?.violations[0]).toMatchObject({ path: 'structuredContent' })
    expect(error?.message).toContain('declare output')
  })

  test('invoke validates arguments too, and returns { content, meta } in the content form', async () => {
    const tool = defineTool({ ...servers, execute: () => ({ content: [{ type: 'text', text: 'ok' }], meta: 1 }) })
    await expect(tool.invoke({ servers: [] }, execution('connect', {}))).resolves.toEqual({
      content: [{ type: 'text', text: 'ok' }],
      meta: 1,
    })
    await expect(tool.invoke({} as never, execution('connect', {}))).rejects.toSatisfy(ToolArgsError.isInstance)
  })

  test('a body that throws propagates its error (the registry turns it into an isError result)', async () => {
    const tool = defineTool({
      ...minimal,
      execute: () => {
        throw new Error('disk full')
      },
    })
    await expect(tool.execute({}, execution('noop', {}))).rejects.toThrow('disk full')
  })
})

describe('validateArguments (the registry hook)', () => {
  const tool = defineTool({ ...servers, execute: () => 'ok' })

  test('arguments that match are accepted without running anything', () => {
    expect(tool.validateArguments({ servers: [] })).toEqual({ ok: true })
  })

  test('arguments that do not match are rejected with the ToolArgsError message the model reads', async () => {
    const check = tool.validateArguments({ servers: 'x' })
    expect(check.ok).toBe(false)
    const thrown = await tool.invoke({ servers: 'x' } as never, execution('connect', {})).then(
      () => undefined,
      (error: unknown) => error as ToolArgsError,
    )
    expect(check).toEqual({ ok: false, message: thrown?.message })
    expect(thrown?.message).toContain('servers')
  })

  test('arguments that cannot be read are rejected, not thrown', () => {
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    const check = tool.validateArguments(proxy)
    expect(check.ok).toBe(false)
    expect(check.ok ? '' : check.message).toMatch(/^Invalid arguments for tool "connect"/)
  })
})

describe('presentCall and presentResult', () => {
  const tool = defineTool({
    name: 'bash',
    description: 'Run a command.',
    parameters: { command: { type: 'string', required: true } },
    output: {
      schema: { type: 'object', additionalProperties: false, properties: { exitCode: { type: 'integer', required: true } } },
      render: (_args, value) => `[exit code: ${value.exitCode}]`,
      presentationMeta: (_args, value) => ({ exitCode: value.exitCode }),
    },
    execute: () => ({ exitCode: 0 }),
    presentCall: (args) => ({ card: 'terminal', title: args.command }),
    presentResult: (args, result) => ({
      card: 'terminal',
      title: args.command,
      ...(result.meta === undefined ? {} : { exitCode: result.meta.exitCode }),
    }),
  })

  test('arguments that validate are presented', () => {
    expect(tool.presentCall?.({ command: 'ls' })).toEqual({ card: 'terminal', title: 'ls' })
    const result: ToolResult = { content: [], isError: false, meta: { exitCode: 2 } }
    expect(tool.presentResult?.({ command: 'ls' }, result)).toEqual({ card: 'terminal', title: 'ls', exitCode: 2 })
  })

  test('arguments that do not validate (replayed logs can hold anything) give undefined, not a throw', () => {
    for (const args of [undefined, null, 'ls', { command: 1 }, { cmd: 'ls' }]) {
      expect(tool.presentCall?.(args)).toBeUndefined()
      expect(tool.presentResult?.(args, { content: [], isError: false })).toBeUndefined()
    }
  })

  test('presentResult sees the replayable projections only, never structuredContent', () => {
    let seen: unknown
    const spy = defineTool({ ...minimal, presentResult: (_args, result) => void (seen = result) })
    const result = { content: [], isError: false, meta: 1, structuredContent: { secret: 'x' } }
    spy.presentResult?.({}, result)
    expect(seen).toEqual({ content: [], isError: false, meta: 1 })
  })

  test('with output but no presentationMeta, presentResult gets no meta (the value is not a projection)', () => {
    let seen: unknown
    const valued = defineTool({
      ...minimal,
      output: { schema: { type: 'string' }, render: (_args, value) => value },
      presentResult: (_args, result) => void (seen = result),
    })
    valued.presentResult?.({}, { content: [], isError: false, meta: 'replayed' })
    expect(seen).toEqual({ content: [], isError: false })
  })

  test('no presenter given, none defined', () => {
    const plain = defineTool(minimal)
    expect(plain.presentCall).toBeUndefined()
    expect(plain.presentResult).toBeUndefined()
  })
})
