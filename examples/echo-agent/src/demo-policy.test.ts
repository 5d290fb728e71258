import type { ToolDefinition } from '@dsh/tools-core'
import { createTestAgent, createToolContext, expectCleanUnload, runScriptedSession } from '@dsh/tools-testing'
import { describe, expect, it, vi } from 'vitest'
import { DemoApproval } from './demo-approval.js'
import * as demoPolicy from './demo-policy.js'

/** A stand-in `bash` that prints what it is told to, so the policy is tested without running commands. */
function fakeBash(ran: string[]): ToolDefinition {
  return {
    name: 'bash',
    description: 'Pretend to run a command.',
    parameters: { type: 'object', properties: { command: { type: 'string' }, print: { type: 'string' } } },
    async execute(args) {
      const { command, print } = args as { command: string; print?: string }
      ran.push(command)
      return [{ type: 'text', text: print ?? `ran ${command}` }]
    },
  }
}

const writeFile: ToolDefinition = {
  name: 'write_file',
  description: 'Pretend to write a file.',
  parameters: { type: 'object', properties: { path: { type: 'string' } } },
  async execute() {
    return [{ type: 'text', text: 'written' }]
  },
}

describe('demo policy', () => {
  it('denies destructive commands with a guard, before the tool runs and before anyone is asked', async () => {
    const agent = createTestAgent('cleaner')
    const decide = vi.fn().mockResolvedValue({ outcome: 'allowed-once' })
    await using t = await createToolContext({ plugins: [demoPolicy, [DemoApproval, { decide }]] })
    const ran: string[] = []
    t.tools.register(fakeBash(ran))
    const denied = await t.tools.execute({ callId: 'c1', name: 'bash', arguments: { command: 'rm -rf /' }, agent })
    expect(denied).toEqual({
      callId: 'c1',
      isError: true,
      error: { name: 'ToolDeniedError', code: 'GUARD_DENIED' },
      content: [{ type: 'text', text: 'The call to "bash" was denied by a guard: "rm -rf /" would delete the whole file system' }],
    })
    // The policy asks about deleting commands, but the guard's denial came first: nobody was asked.
    expect(decide).not.toHaveBeenCalled()
    const allowed = await t.tools.execute({ callId: 'c2', name: 'bash', arguments: { command: 'rm -rf build' }, agent })
    expect(allowed.isError).toBe(false)
    expect(decide).toHaveBeenCalledTimes(1)
    expect(decide).toHaveBeenLastCalledWith(expect.objectContaining({ reason: 'it deletes files' }))
    expect(ran).toEqual(['rm -rf build'])
  })

  it('does not ask about commands that delete nothing', async () => {
    await using t = await createToolContext({ plugins: [demoPolicy] })
    t.tools.register(fakeBash([]))
    for (const command of ['grep -rn rm notes.md', 'ls', 'echo farm']) {
      expect((await t.tools.execute({ callId: 'c1', name: 'bash', arguments: { command } })).isError).toBe(false)
    }
    expect((await t.tools.execute({ callId: 'c2', name: 'bash', arguments: { command: 'cd build && rm a.o' } })).error?.code).toBe('APPROVAL_NO_AGENT')
  })

  it('no pre-execute listener can undo the guard', async () => {
    await using t = await createToolContext({ plugins: [demoPolicy] })
    t.tools.register(fakeBash([]))
    t.tools.on('tools/pre-execute', () => ({ kind: 'allow' }), { prepend: true })
    const result = await t.tools.execute({ callId: 'c1', name: 'bash', arguments: { command: 'sudo rm -rf /' } })
    expect(result.error?.code).toBe('GUARD_DENIED')
  })

  it('asks before write_file runs: approved once it runs, rejected it does not', async () => {
    const agent = createTestAgent('writer')
    const decide = vi.fn().mockResolvedValueOnce({ outcome: 'allowed-once' }).mockResolvedValueOnce({ outcome: 'rejected', reason: 'not now' })
    await using t = await createToolContext({ plugins: [demoPolicy, [DemoApproval, { decide }]] })
    t.tools.register(writeFile)
    const first = await t.tools.execute({ callId: 'c1', name: 'write_file', arguments: { path: 'a.md' }, agent })
    expect(first).toMatchObject({ isError: false, content: [{ type: 'text', text: 'written' }] })
    expect(decide).toHaveBeenLastCalledWith(expect.objectContaining({ reason: 'it writes a.md', agent }))
    const second = await t.tools.execute({ callId: 'c2', name: 'write_file', arguments: { path: 'a.md' }, agent })
    expect(second).toMatchObject({
      isError: true,
      error: { code: 'APPROVAL_REJECTED' },
      content: [{ type: 'text', text: 'The call to "write_file" was rejected: not now. It was not run.' }],
    })
  })

  it('denies the ask when nobody can approve', async () => {
    await using t = await createToolContext({ plugins: [demoPolicy] })
    t.tools.register(writeFile)
    const result = await t.tools.execute({ callId: 'c1', name: 'write_file', arguments: {}, agent: createTestAgent('a') })
    expect(result.error?.code).toBe('APPROVAL_NO_SERVICE')
  })

  it('regression: redacts a credential from content, meta and structuredContent; it is nowhere in the result or the log', async () => {
    await using t = await createToolContext({ plugins: [demoPolicy] })
    const secret = 'sk-demo-123456789abcdef0'
    const leaky: ToolDefinition = {
      name: 'read_config',
      description: 'Reads a configuration file.',
      parameters: { type: 'object' },
      async execute() {
        return {
          content: [{ type: 'text', text: `API_TOKEN=${secret}\nLOG_LEVEL=debug\n` }],
          meta: { preview: `API_TOKEN=${secret}` },
          structuredContent: { entries: { API_TOKEN: secret, LOG_LEVEL: 'debug' } },
        }
      },
    }
    t.tools.register(leaky)
    t.tools.register(fakeBash([]))
    const session = await runScriptedSession(t.tools, [
      [
        { id: 'c1', name: 'read_config', arguments: {} },
        { id: 'c2', name: 'bash', arguments: { command: 'cat README', print: 'hello' } },
      ],
    ])
    const [redacted, fine] = session.steps[0]?.results ?? []
    expect(redacted).toMatchObject({
      isError: false,
      content: [{ type: 'text', text: 'API_TOKEN=[redacted]\nLOG_LEVEL=debug\n' }],
      meta: { preview: 'API_TOKEN=[redacted]' },
      structuredContent: { entries: { API_TOKEN: '[redacted]', LOG_LEVEL: 'debug' } },
    })
    expect(JSON.stringify(redacted)).not.toContain(secret)
    expect(JSON.stringify(session.log)).not.toContain(secret)
    expect(fine).toMatchObject({ isError: false, content: [{ type: 'text', text: 'hello' }] })
    expect(session.steps[0]?.context).toMatchObject([
      {
        type: 'context/message',
        callId: 'c1',
        source: 'demo-policy',
        content: [
          { type: 'text', text: 'A result held an assignment to API_TOKEN; it was redacted. Files such as .env hold credentials: do not print them.' },
        ],
      },
    ])
  })

  it('redacts a secret that only the canonical value holds', async () => {
    await using t = await createToolContext({ plugins: [demoPolicy] })
    t.tools.register({
      name: 'lookup',
      description: 'Looks a key up.',
      parameters: { type: 'object' },
      execute: async () => ({ content: [{ type: 'text', text: 'found it' }], structuredContent: { key: 'ghp_abcdefghijklmnopqrstuvwxyz0123' } }),
    })
    const result = await t.tools.execute({ callId: 'c1', name: 'lookup', arguments: {} })
    expect(result.structuredContent).toEqual({ key: '[redacted]' })
    expect(result.content).toEqual([{ type: 'text', text: 'found it' }])
  })

  it('leaves nothing behind when the plugin is unloaded', async () => {
    const report = await expectCleanUnload(demoPolicy)
    expect(report.footprint.guards).toBe(1)
    expect(report.footprint.listeners.map((listener) => listener.event)).toEqual(['tools/pre-execute', 'tools/post-execute'])
  })
})
