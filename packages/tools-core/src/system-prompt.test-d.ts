import { describe, expectTypeOf, it } from 'vitest'
import type {
  Agent,
  SystemPromptAssembly,
  SystemPromptSection,
  SystemPromptSectionProvider,
  SystemPromptService,
  SystemPromptToolProvider,
  SystemPromptTools,
  ToolSchema,
} from './index.js'
import { SYSTEM_PROMPT_SERVICE } from './index.js'

describe('the system-prompt seam', () => {
  it('names the service with a literal type', () => {
    expectTypeOf(SYSTEM_PROMPT_SERVICE).toEqualTypeOf<'systemPrompt'>()
  })

  it('an assembly needs neither an agent nor a signal', () => {
    expectTypeOf<{}>().toExtend<SystemPromptAssembly>()
    expectTypeOf<{ agent: Agent; signal: AbortSignal }>().toExtend<SystemPromptAssembly>()
    expectTypeOf<SystemPromptAssembly['agent']>().toEqualTypeOf<Agent | undefined>()
    expectTypeOf<{ agent: string }>().not.toExtend<SystemPromptAssembly>()
  })

  it('a tool provider answers schemas and the names known before restriction, sync or async', () => {
    const sync: SystemPromptToolProvider = () => ({ schemas: [], knownNames: [] })
    const async: SystemPromptToolProvider = async ({ agent }) => ({ schemas: [], knownNames: agent ? [agent.id] : [] })
    expectTypeOf(sync).returns.toExtend<SystemPromptTools | PromiseLike<SystemPromptTools>>()
    expectTypeOf(async).parameter(0).toEqualTypeOf<SystemPromptAssembly>()
    expectTypeOf<SystemPromptTools['schemas']>().toEqualTypeOf<readonly ToolSchema[]>()
    expectTypeOf<{ schemas: ToolSchema[] }>().not.toExtend<SystemPromptTools>()
    expectTypeOf<() => { schemas: ToolSchema[] }>().not.toExtend<SystemPromptToolProvider>()
  })

  it('a section provider may contribute nothing to an assembly', () => {
    const none: SystemPromptSectionProvider = () => undefined
    const some: SystemPromptSectionProvider = async () => ({ id: 'files', title: 'Files', text: 'Read before you edit.' })
    expectTypeOf(none).returns.toExtend<SystemPromptSection | undefined | PromiseLike<SystemPromptSection | undefined>>()
    expectTypeOf(some).toExtend<SystemPromptSectionProvider>()
    expectTypeOf<{ id: string }>().not.toExtend<SystemPromptSection>()
  })

  it('any object with tools() and section() returning disposers is a service', () => {
    const service = {
      tools: (_provider: SystemPromptToolProvider) => () => undefined,
      section: (_provider: SystemPromptSectionProvider) => () => undefined,
      assemble: async (_assembly: SystemPromptAssembly) => '',
    }
    expectTypeOf(service).toExtend<SystemPromptService>()
    expectTypeOf<SystemPromptService['tools']>().returns.toEqualTypeOf<() => void>()
  })

  it('tools() alone is a service (the registry needs nothing else); section() alone is not', () => {
    expectTypeOf<{ tools: SystemPromptService['tools'] }>().toExtend<SystemPromptService>()
    expectTypeOf<{ section: NonNullable<SystemPromptService['section']> }>().not.toExtend<SystemPromptService>()
  })
})
