import type {
  SystemPromptAssembly,
  SystemPromptSection,
  SystemPromptSectionProvider,
  SystemPromptService,
  SystemPromptToolProvider,
} from '@dsh/tools-core'
import { createTestAgent } from '@dsh/tools-testing'
import type { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { BASH_GUIDANCE_ID, bashGuidance } from './bash-guidance.js'
import { loadTools } from './test-support.js'

/** A small system-prompt service: keeps contributions, and asks each for one assembly. */
function systemPromptService() {
  const toolProviders = new Set<SystemPromptToolProvider>()
  const sectionProviders = new Set<SystemPromptSectionProvider>()
  const service = {
    toolProviders,
    sectionProviders,
    tools(provider: SystemPromptToolProvider): () => void {
      toolProviders.add(provider)
      return () => void toolProviders.delete(provider)
    },
    section(provider: SystemPromptSectionProvider): () => void {
      sectionProviders.add(provider)
      return () => void sectionProviders.delete(provider)
    },
    async sections(assembly: SystemPromptAssembly = {}): Promise<SystemPromptSection[]> {
      const all = await Promise.all([...sectionProviders].map((provider) => provider(assembly)))
      return all.filter((section) => section !== undefined)
    },
    async toolNames(assembly: SystemPromptAssembly = {}): Promise<string[]> {
      const all = await Promise.all([...toolProviders].map((provider) => provider(assembly)))
      return all.flatMap((part) => part.schemas.map((schema) => schema.name))
    },
  }
  return service satisfies SystemPromptService
}

const providing = (service: unknown) => ({
  name: 'system-prompt',
  apply: (ctx: Context) => void ctx.provide('systemPrompt', service),
})

describe('the bash guidance section', () => {
  it('says that exit codes are not errors and when to use a background task, with the configured numbers', () => {
    const section = bashGuidance({ defaultTimeoutMs: 120_000, maxBackgroundTasks: 3, toldOnCompletion: true })
    expect(section.id).toBe(BASH_GUIDANCE_ID)
    expect(section.title).toBe('Running commands')
    expect(section.text).toContain('A nonzero exit code is not a failed tool call')
    expect(section.text).toContain('`[exit code: N]`')
    expect(section.text).toContain('Set `run_in_background` for servers, watchers and commands that may run longer than 2 min')
    expect(section.text).toContain('read new output with `bash_output` and stop the task with `bash_kill`')
    expect(section.text).toContain('(you are told when it ends)')
    expect(section.text).toContain('At most 3 run at once.')
    expect(section.text.split('\n')).toHaveLength(2)
  })

  it('leaves out the background advice when the agent cannot read or stop tasks, and the notice when nobody tells it', () => {
    expect(bashGuidance({ defaultTimeoutMs: 30_000, maxBackgroundTasks: 8 }).text).not.toContain('told when it ends')
    const foregroundOnly = bashGuidance({ defaultTimeoutMs: 30_000, maxBackgroundTasks: 8, background: false })
    expect(foregroundOnly.text).toContain('[exit code: N]')
    expect(foregroundOnly.text).not.toContain('run_in_background')
  })
})

describe('BashTools contributes its guidance when a systemPrompt service is present', () => {
  it('per assembly, next to the registry’s tool schemas, with the executor’s timeout and the tools’ cap', async () => {
    await using loaded = await loadTools({ executor: { defaultTimeoutMs: 45_000 }, tools: { maxBackgroundTasks: 2 } })
    const service = systemPromptService()
    await loaded.t.load(providing(service))
    const withNotices = createTestAgent('alice')
    const [section] = await service.sections({ agent: withNotices })
    expect(section?.id).toBe('tool-bash')
    expect(section?.text).toContain('may run longer than 45 s')
    expect(section?.text).toContain('At most 2 run at once.')
    expect(section?.text).toContain('(you are told when it ends)')
    expect(await service.toolNames({ agent: withNotices })).toEqual(['bash', 'bash_output', 'bash_kill'])
    const [plain] = await service.sections({ agent: { id: 'no-inject' } })
    expect(plain?.text).not.toContain('told when it ends')
    expect(await service.sections()).toHaveLength(1)
  })

  it('says nothing to an agent that cannot call bash, or whose bash is a tool of its own', async () => {
    await using loaded = await loadTools()
    const service = systemPromptService()
    await loaded.t.load(providing(service))
    const restricted = createTestAgent('restricted')
    loaded.t.tools.scope(restricted).restrict({ deny: ['bash'] })
    expect(await service.sections({ agent: restricted })).toEqual([])
    const own = createTestAgent('own-bash')
    loaded.t.tools.scope(own).register({
      name: 'bash',
      description: 'A remote shell.',
      parameters: { type: 'object', properties: {} },
      execute: async () => [],
    })
    expect(await service.sections({ agent: own })).toEqual([])
  })

  it('gives an agent that cannot read background tasks only the exit-code advice', async () => {
    await using loaded = await loadTools()
    const service = systemPromptService()
    await loaded.t.load(providing(service))
    const agent = createTestAgent('no-output')
    loaded.t.tools.scope(agent).restrict({ allow: ['bash', 'bash_kill'] })
    const [section] = await service.sections({ agent })
    expect(section?.text).toContain('[exit code: N]')
    expect(section?.text).not.toContain('run_in_background')
  })

  it('removes the section when the bash tools are unloaded; the registry keeps its own provider', async () => {
    await using loaded = await loadTools()
    const service = systemPromptService()
    await loaded.t.load(providing(service))
    expect(service.sectionProviders.size).toBe(1)
    expect(service.toolProviders.size).toBe(1)
    const bashTools = [...loaded.t.ctx.registry.values()].find((runtime) => runtime.name === 'bash-tools')
    expect(bashTools?.fibers.length).toBe(1)
    await [...bashTools!.fibers][0]!.dispose()
    expect(service.sectionProviders.size).toBe(0)
    expect(service.toolProviders.size).toBe(1)
    expect(await service.toolNames()).toEqual([])
  })

  it('loads and runs without a service, warning about nothing', async () => {
    await using loaded = await loadTools()
    const result = await loaded.call('bash', { command: 'exit 3' })
    expect(result.isError).toBe(false)
    expect(loaded.text(result)).toContain('[exit code: 3]')
    expect(loaded.t.logs.filter((record) => record.type === 'warn')).toEqual([])
  })
})
