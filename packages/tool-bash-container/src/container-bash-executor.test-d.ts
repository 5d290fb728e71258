import type { BashExecutor } from '@dsh/tool-bash'
import type { Context } from 'cordis'
import { describe, expectTypeOf, it } from 'vitest'
import { ContainerBashExecutor, type ContainerBashConfig, type ContainerEngineEndpoint, type ContainerFacts, type ContainerUnavailableCause } from './index.js'

describe('types', () => {
  it('is a BashExecutor that cordis constructs with (ctx, config)', () => {
    expectTypeOf<ContainerBashExecutor>().toExtend<BashExecutor>()
    expectTypeOf<ConstructorParameters<typeof ContainerBashExecutor>[0]>().toEqualTypeOf<Context>()
    expectTypeOf<ConstructorParameters<typeof ContainerBashExecutor>[1]>().toEqualTypeOf<ContainerBashConfig | undefined>()
    expectTypeOf<ContainerBashExecutor['facts']>().toEqualTypeOf<ContainerFacts | null>()
  })

  it('takes a unix socket or a URL with TLS material as the engine', () => {
    expectTypeOf<{ socketPath: string }>().toExtend<ContainerEngineEndpoint>()
    expectTypeOf<{ url: string; ca: string; cert: string; key: string }>().toExtend<ContainerEngineEndpoint>()
    expectTypeOf<{ host: string }>().not.toExtend<ContainerEngineEndpoint>()
    expectTypeOf<'limit-not-enforced'>().toExtend<ContainerUnavailableCause>()
  })
})
