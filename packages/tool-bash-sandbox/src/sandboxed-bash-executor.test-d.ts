import type { BashExecutor } from '@dsh/tool-bash'
import type { Context } from 'cordis'
import { describe, expectTypeOf, it } from 'vitest'
import {
  SandboxedBashExecutor,
  type SandboxNetworkAllowList,
  type SandboxPolicy,
  type SandboxUnavailableCause,
  type SandboxedBashConfig,
} from './index.js'

describe('types', () => {
  it('is a BashExecutor that cordis constructs with (ctx, config)', () => {
    expectTypeOf<SandboxedBashExecutor>().toExtend<BashExecutor>()
    expectTypeOf<ConstructorParameters<typeof SandboxedBashExecutor>[0]>().toEqualTypeOf<Context>()
    expectTypeOf<ConstructorParameters<typeof SandboxedBashExecutor>[1]>().toEqualTypeOf<SandboxedBashConfig | undefined>()
    expectTypeOf<SandboxedBashExecutor['policy']>().toEqualTypeOf<SandboxPolicy>()
  })

  it('takes only the documented network and fallback values', () => {
    expectTypeOf<SandboxedBashConfig['network']>().toEqualTypeOf<'off' | SandboxNetworkAllowList | undefined>()
    expectTypeOf<SandboxedBashConfig['onUnavailable']>().toEqualTypeOf<'fail' | 'run-unsandboxed' | undefined>()
    expectTypeOf<'bwrap-missing'>().toExtend<SandboxUnavailableCause>()
  })
})
