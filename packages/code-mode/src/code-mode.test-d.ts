import type { Agent } from '@dsh/tools-core'
import type { Context } from 'cordis'
import { describe, expectTypeOf, test } from 'vitest'
import type { CodeRuntime, CodeOutcome, CodeRunRequest } from './code-runtime.js'
import type { CodeMode, CodeModeSetting } from './code-mode.js'
import { resolveCodeModeConfig, type CodeModeConfig } from './code-mode-config.js'
import { renderSdk, type CodeSdk } from './sdk.js'

describe('Code Mode, as its users see it', () => {
  test('ctx.codeMode is the service: sdk per agent, modes per agent', () => {
    expectTypeOf<Context['codeMode']>().toEqualTypeOf<CodeMode>()
    expectTypeOf<CodeMode['sdk']>().parameter(0).toEqualTypeOf<Agent | undefined>()
    expectTypeOf<CodeMode['sdk']>().returns.toEqualTypeOf<CodeSdk>()
    expectTypeOf<CodeMode['setMode']>().parameter(1).toEqualTypeOf<CodeModeSetting>()
    expectTypeOf<CodeModeSetting>().toEqualTypeOf<'native' | 'both' | 'code'>()
  })

  test('a runtime is one run() and one close()', () => {
    expectTypeOf<CodeRuntime['run']>().parameter(0).toEqualTypeOf<CodeRunRequest>()
    expectTypeOf<CodeRuntime['run']>().returns.toEqualTypeOf<Promise<CodeOutcome>>()
    expectTypeOf<Extract<CodeOutcome, { ok: false }>['kind']>().toEqualTypeOf<'error' | 'timeout' | 'memory' | 'aborted'>()
  })

  test('the configuration takes partial limits and a runtime', () => {
    expectTypeOf(resolveCodeModeConfig).parameter(0).toEqualTypeOf<CodeModeConfig | undefined>()
    expectTypeOf<CodeModeConfig['limits']>().toEqualTypeOf<Partial<import('./code-runtime.js').CodeLimits> | undefined>()
    expectTypeOf(renderSdk).returns.toEqualTypeOf<CodeSdk>()
  })
})
