import { describe, expectTypeOf, test } from 'vitest'
import type { CodeRuntime } from '../code-runtime.js'
import * as sandbox from './index.js'
import { SandboxedNodeRuntime, type SandboxedNodeCheck, type SandboxedNodeRuntimeOptions } from './index.js'

describe('@dsh/code-mode/sandbox, as its users see it', () => {
  test('the runtime is a CodeRuntime with a check that never throws', () => {
    expectTypeOf<SandboxedNodeRuntime>().toExtend<CodeRuntime>()
    expectTypeOf<SandboxedNodeRuntime['check']>().returns.toEqualTypeOf<Promise<SandboxedNodeCheck>>()
    expectTypeOf<Extract<SandboxedNodeCheck, { ok: true }>['baseAddressSpaceBytes']>().toEqualTypeOf<number>()
    expectTypeOf<Extract<SandboxedNodeCheck, { ok: false }>['reason']>().toEqualTypeOf<sandbox.SandboxedNodeUnavailableReason>()
  })

  test('every option is optional', () => {
    expectTypeOf<{}>().toExtend<SandboxedNodeRuntimeOptions>()
    expectTypeOf<SandboxedNodeRuntimeOptions['nodePermissions']>().toEqualTypeOf<boolean | undefined>()
    expectTypeOf(sandbox.SANDBOXED_NODE_MAX_STACK_BYTES).toEqualTypeOf<number>()
  })
})
