import type {
  Agent,
  SystemPromptAssembly,
  SystemPromptSection,
  SystemPromptSectionProvider,
  SystemPromptService,
  SystemPromptToolProvider,
  ToolSchema,
} from '@dsh/tools-core'
import { Context } from 'cordis'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { InvalidToolPolicyError } from './invalid-tool-policy-error.js'
import { contributeToSystemPrompt } from './system-prompt-feed.js'
import { agent, createHarness, load, tool } from './test-kit.js'
import { ToolRegistry } from './tool-registry.js'

/** What the small assembler below builds for one assembly. */
interface AssembledPrompt {
  readonly tools: ToolSchema[]
  readonly knownNames: string[]
  readonly sections: SystemPromptSection[]
}

/**
 * A small system-prompt service, as a harness would write one: contributions are kept in sets, and `assemble` asks
 * every one of them for one assembly.
 */
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
    async assemble(assembly: SystemPromptAssembly = {}): Promise<AssembledPrompt> {
      const tools = await Promise.all([...toolProviders].map((provider) => provider(assembly)))
      const sections = await Promise.all([...sectionProviders].map((provider) => provider(assembly)))
      return {
        tools: tools.flatMap((part) => [...part.schemas]),
        knownNames: tools.flatMap((part) => [...part.knownNames]),
        sections: sections.filter((section) => section !== undefined),
      }
    },
  }
  return service satisfies SystemPromptService
}

/** Provides `service` as `ctx.systemPrompt` from a plugin of its own; disposing the fiber removes it. */
async function provideSystemPrompt(ctx: Context, service: unknown) {
  return ctx.plugin({ name: 'system-prompt', apply: (inner: Context) => void inner.provide('systemPrompt', service) })
}

const names = (schemas: readonly { name: string }[]): string[] => schemas.map((schema) => schema.name)

describe('the registry feeds its tool schemas into ctx.systemPrompt when one is present', () => {
  it('registers one tool provider with a service provided after the registry', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    const service = systemPromptService()
    await provideSystemPrompt(ctx, service)
    expect(service.toolProviders.size).toBe(1)
    expect(names((await service.assemble()).tools)).toEqual(['read'])
  })

  it('registers with a service provided before the registry', async () => {
    const ctx = new Context()
    const service = systemPromptService()
    await provideSystemPrompt(ctx, service)
    await ctx.plugin(ToolRegistry)
    ctx.tools.register(tool('read'))
    expect(service.toolProviders.size).toBe(1)
    expect(names((await service.assemble()).tools)).toEqual(['read'])
  })

  it("answers each assembly with its agent's schemas after restriction and every name known before it", async () => {
    const { ctx, tools } = await createHarness()
    const service = systemPromptService()
    await provideSystemPrompt(ctx, service)
    for (const name of ['read', 'write', 'shell', 'notes']) tools.register(tool(name))
    const alice = agent('alice')
    const scope = tools.scope(alice)
    scope.restrict({ deny: ['shell', 'write'] })
    scope.register(tool('notes', { description: "Alice's notes." }))
    scope.register(tool('plan'))

    const forAlice = await service.assemble({ agent: alice })
    expect(forAlice.tools).toEqual(tools.schemas(alice))
    expect(names(forAlice.tools)).toEqual(['read', 'notes', 'plan'])
    expect(forAlice.tools[1]?.description).toBe("Alice's notes.")
    expect(forAlice.knownNames).toEqual(['read', 'write', 'shell', 'notes', 'plan'])

    const global = await service.assemble({})
    expect(names(global.tools)).toEqual(['read', 'write', 'shell', 'notes'])
    expect(global.knownNames).toEqual(['read', 'write', 'shell', 'notes'])
    const stranger = await service.assemble({ agent: agent('bob') })
    expect(names(stranger.tools)).toEqual(['read', 'write', 'shell', 'notes'])
  })

  it('follows the registry: a tool registered or restricted after the provider shows in the next assembly', async () => {
    const { ctx, tools } = await createHarness()
    const service = systemPromptService()
    await provideSystemPrompt(ctx, service)
    const alice = agent('alice')
    expect((await service.assemble({ agent: alice })).tools).toEqual([])
    const disposeRead = tools.register(tool('read'))
    expect(names((await service.assemble({ agent: alice })).tools)).toEqual(['read'])
    const lift = tools.scope(alice).restrict({ allow: [] })
    expect(names((await service.assemble({ agent: alice })).tools)).toEqual([])
    expect((await service.assemble({ agent: alice })).knownNames).toEqual(['read'])
    lift()
    disposeRead()
    expect(await service.assemble({ agent: alice })).toEqual({ tools: [], knownNames: [], sections: [] })
  })

  it('hands out fresh copies: an assembler that edits a schema changes nothing for the next one', async () => {
    const { ctx, tools } = await createHarness()
    const service = systemPromptService()
    await provideSystemPrompt(ctx, service)
    tools.register(tool('read'))
    const first = await service.assemble()
    first.tools[0]!.description = 'edited'
    ;(first.tools[0]!.parameters as unknown as { properties: Record<string, unknown> }).properties.x = { type: 'string' }
    expect((await service.assemble()).tools).toEqual([
      { name: 'read', description: 'The read tool.', parameters: { type: 'object', properties: {} } },
    ])
  })

  it('removes the provider when the registry is disposed, and leaves no fiber of its own behind', async () => {
    const ctx = new Context()
    const service = systemPromptService()
    await provideSystemPrompt(ctx, service)
    const pluginsBefore = ctx.registry.size
    const registry = await ctx.plugin(ToolRegistry)
    expect(service.toolProviders.size).toBe(1)
    await registry.dispose()
    expect(service.toolProviders.size).toBe(0)
    expect(ctx.registry.size).toBe(pluginsBefore)
  })

  it('moves to a replacement service: the old one forgets the provider, the new one gets it', async () => {
    const { ctx, tools } = await createHarness()
    tools.register(tool('read'))
    const first = systemPromptService()
    const fiber = await provideSystemPrompt(ctx, first)
    expect(first.toolProviders.size).toBe(1)
    await fiber.dispose()
    expect(first.toolProviders.size).toBe(0)
    const second = systemPromptService()
    await provideSystemPrompt(ctx, second)
    expect(first.toolProviders.size).toBe(0)
    expect(names((await second.assemble()).tools)).toEqual(['read'])
  })

  it('works without a service and warns about nothing', async () => {
    const { tools, warnings } = await createHarness()
    tools.register(tool('read'))
    expect(names(tools.schemas())).toEqual(['read'])
    expect(warnings).toEqual([])
  })

  it('warns about a systemPrompt service without tools(), and keeps working', async () => {
    const { ctx, tools, warnings } = await createHarness()
    await provideSystemPrompt(ctx, { assemble: () => '' })
    expect(warnings).toEqual(['ctx.systemPrompt has no tools() method (an object); not contributing the tool schemas of ctx.tools to it'])
    tools.register(tool('read'))
    expect(names(tools.schemas())).toEqual(['read'])
  })

  it('regression: a service with tools() and no section() (the seam as the specification writes it) gets the tool schemas', async () => {
    const { ctx, tools, warnings } = await createHarness()
    const providers: SystemPromptToolProvider[] = []
    const service = {
      tools(provider: SystemPromptToolProvider) {
        providers.push(provider)
        return () => undefined
      },
    } satisfies SystemPromptService
    await provideSystemPrompt(ctx, service)
    tools.register(tool('read'))
    expect(providers).toHaveLength(1)
    expect(names((await providers[0]!({})).schemas)).toEqual(['read'])
    expect(warnings).toEqual([])
  })

  it('a guidance contribution to a service without section() is reported for that contribution only', async () => {
    const { ctx, warnings } = await createHarness()
    const fed: string[] = []
    await provideSystemPrompt(ctx, { tools: () => (fed.push('tools'), () => undefined) })
    contributeToSystemPrompt(ctx, 'the files guidance', (service) => service.section(() => ({ id: 'files', title: 'Files', text: 'Read first.' })))
    await new Promise((resolve) => setImmediate(resolve))
    expect(fed).toEqual(['tools'])
    expect(warnings).toEqual(['ctx.systemPrompt has no section() method (an object); not contributing the files guidance to it'])
  })

  it('a service whose tools() throws is logged; the registry stays usable and disposes cleanly', async () => {
    const { ctx, tools, warnings } = await createHarness()
    const fiber = await provideSystemPrompt(ctx, {
      tools: () => {
        throw new Error('assembler is closed')
      },
      section: () => () => undefined,
    })
    expect(warnings).toEqual(['contributing the tool schemas of ctx.tools to ctx.systemPrompt threw: Error: assembler is closed'])
    tools.register(tool('read'))
    expect(names(tools.schemas())).toEqual(['read'])
    await fiber.dispose()
    expect(warnings).toHaveLength(1)
  })

  it('a disposer that throws is logged, not thrown into cordis', async () => {
    const { ctx, warnings } = await createHarness()
    const fiber = await provideSystemPrompt(ctx, {
      tools: () => () => {
        throw new Error('already closed')
      },
      section: () => () => undefined,
    })
    await fiber.dispose()
    expect(warnings).toEqual(['removing the tool schemas of ctx.tools from ctx.systemPrompt threw: Error: already closed'])
  })
})

describe('the tool provider checks each assembly', () => {
  async function provider(): Promise<{ provide: SystemPromptToolProvider; tools: ToolRegistry }> {
    const { ctx, tools } = await createHarness()
    const service = systemPromptService()
    await provideSystemPrompt(ctx, service)
    tools.register(tool('read'))
    return { provide: [...service.toolProviders][0]!, tools }
  }

  it('an absent assembly is the global view', async () => {
    const { provide } = await provider()
    expect(names((await provide(undefined as unknown as SystemPromptAssembly)).schemas)).toEqual(['read'])
  })

  it.each([
    ['a string', 'alice', 'A system-prompt assembly must be an object { agent?, signal? }, got the string "alice"'],
    [
      'an agent id instead of the agent',
      { agent: 'alice' },
      'A system-prompt assembly\'s agent must be the agent object its tools are scoped to (or absent), got the string "alice"',
    ],
    [
      'a look-alike signal',
      { signal: { aborted: false, addEventListener() {} } },
      "A system-prompt assembly's signal must be an AbortSignal (or absent), got an object",
    ],
    [
      'an agent getter that throws',
      Object.defineProperty({}, 'agent', {
        enumerable: true,
        get() {
          throw new Error('gone')
        },
      }),
      'A system-prompt assembly cannot be read: reading agent threw: Error: gone',
    ],
  ])('a malformed assembly (%s) is an InvalidToolPolicyError naming what is wrong', async (_label, assembly, message) => {
    const { provide } = await provider()
    let thrown: unknown
    try {
      await provide(assembly as SystemPromptAssembly)
    } catch (error) {
      thrown = error
    }
    expect(InvalidToolPolicyError.isInstance(thrown)).toBe(true)
    expect(thrown).toMatchObject({ code: 'INVALID_CONFIG', message })
  })

  it('an assembly whose signal has fired is refused with the signal’s reason', async () => {
    const { provide } = await provider()
    const controller = new AbortController()
    const reason = new Error('turn cancelled')
    controller.abort(reason)
    let thrown: unknown
    try {
      await provide({ signal: controller.signal })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBe(reason)
  })

  it('for every registry and agent: the schemas are schemas(agent), a subsequence of the names known before restriction', async () => {
    const toolName = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f')
    const setup = fc.record({
      globals: fc.uniqueArray(toolName, { maxLength: 6 }),
      own: fc.uniqueArray(toolName, { maxLength: 3 }),
      restrictions: fc.array(
        fc.record({ allow: fc.option(fc.array(toolName), { nil: undefined }), deny: fc.option(fc.array(toolName), { nil: undefined }) }),
        { maxLength: 3 },
      ),
    })
    await fc.assert(
      fc.asyncProperty(setup, async ({ globals, own, restrictions }) => {
        const ctx = new Context()
        const service = systemPromptService()
        await provideSystemPrompt(ctx, service)
        const registry = await ctx.plugin(ToolRegistry)
        const tools = ctx.tools
        const alice: Agent = agent('alice')
        for (const name of globals) tools.register(tool(name))
        const scope = tools.scope(alice)
        for (const name of own) scope.register(tool(name))
        for (const { allow, deny } of restrictions) {
          scope.restrict({ ...(allow === undefined ? {} : { allow }), ...(deny === undefined ? {} : { deny }) })
        }
        const prompt = await service.assemble({ agent: alice })
        expect(prompt.tools).toEqual(tools.schemas(alice))
        const known = prompt.knownNames
        expect(new Set(known).size).toBe(known.length)
        expect(new Set(known)).toEqual(new Set([...globals, ...own]))
        let at = 0
        for (const name of names(prompt.tools)) {
          at = known.indexOf(name, at)
          expect(at).toBeGreaterThanOrEqual(0)
          at += 1
        }
        await registry.dispose()
        expect(service.toolProviders.size).toBe(0)
      }),
      { numRuns: 60 },
    )
  })
})

describe('contributeToSystemPrompt: tool packages add guidance sections the same way', () => {
  const guidance: SystemPromptSection = { id: 'files', title: 'Files', text: 'Read a file before you edit it.' }

  it('a section is contributed while both the plugin and the service live, and removed with the plugin', async () => {
    const { ctx } = await createHarness()
    const service = systemPromptService()
    await provideSystemPrompt(ctx, service)
    const plugin = await load(ctx, (inner) => {
      contributeToSystemPrompt(inner, 'files guidance', (systemPrompt) => systemPrompt.section(() => guidance))
    })
    expect((await service.assemble()).sections).toEqual([guidance])
    await plugin.dispose()
    expect(service.sectionProviders.size).toBe(0)
  })

  it('the returned function removes the contribution early, and a later service gets none', async () => {
    const { ctx } = await createHarness()
    const first = systemPromptService()
    const fiber = await provideSystemPrompt(ctx, first)
    let stop: (() => void) | undefined
    await load(ctx, (inner) => {
      stop = contributeToSystemPrompt(inner, 'files guidance', (systemPrompt) => systemPrompt.section(() => guidance))
    })
    expect(first.sectionProviders.size).toBe(1)
    stop!()
    await Promise.resolve()
    expect(first.sectionProviders.size).toBe(0)
    await fiber.dispose()
    const second = systemPromptService()
    await provideSystemPrompt(ctx, second)
    expect(second.sectionProviders.size).toBe(0)
  })

  it('a service that returns no disposer is reported to warn', async () => {
    const ctx = new Context()
    await provideSystemPrompt(ctx, { tools: () => undefined, section: () => undefined })
    const warnings: string[] = []
    const fiber = await ctx.plugin({
      name: 'files',
      apply: (inner: Context) =>
        void contributeToSystemPrompt(inner, 'files guidance', (systemPrompt) => systemPrompt.section(() => guidance), (message) =>
          warnings.push(message),
        ),
    })
    expect(warnings).toEqual(['ctx.systemPrompt returned undefined instead of a disposer for files guidance; it cannot be removed'])
    await fiber.dispose()
    expect(warnings).toHaveLength(1)
  })

  it('refuses a missing label or a contribution that is not a function, naming what it expects', () => {
    const ctx = new Context()
    const attempts: Array<[unknown, unknown, string]> = [
      ['', () => () => undefined, 'contributeToSystemPrompt needs a label (a non-empty string) for its warnings, got the string ""'],
      [
        'files guidance',
        { section: guidance },
        'contributeToSystemPrompt needs a function (service) => disposer, for example (service) => service.section(provider), got an object',
      ],
    ]
    for (const [label, contribute, message] of attempts) {
      let thrown: unknown
      try {
        contributeToSystemPrompt(ctx, label as string, contribute as () => () => void)
      } catch (error) {
        thrown = error
      }
      expect(InvalidToolPolicyError.isInstance(thrown)).toBe(true)
      expect(thrown).toMatchObject({ code: 'INVALID_CONFIG', message })
    }
    expect(ctx.registry.size).toBe(0)
  })

  it('without a service the contribution never runs', async () => {
    const ctx = new Context()
    let runs = 0
    const fiber = await ctx.plugin({
      name: 'files',
      apply: (inner: Context) =>
        void contributeToSystemPrompt(inner, 'files guidance', () => {
          runs += 1
          return () => undefined
        }),
    })
    await fiber.dispose()
    expect(runs).toBe(0)
  })
})
