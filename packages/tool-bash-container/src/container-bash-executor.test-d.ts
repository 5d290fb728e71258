import type { BashExecutor } from '@dsh/tool-bash'
import type { Context } from 'cordis'
import { describe, expectTypeOf, it } from 'vitest'
import {
  ContainerBashExecutor,
  type ContainerBashConfig,
  type ContainerEngineEndpoint,
  type ContainerFacts,
  type ContainerNetworkAllowList,
  type ContainerUnavailableCause,
} from './index.js'

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

  it('takes a network allow list (hosts, an optional resolver) or off, and a CPU quota as a number', () => {
    expectTypeOf<ContainerBashConfig['network']>().toEqualTypeOf<'off' | ContainerNetworkAllowList | undefined>()
    expectTypeOf<{ allow: string[] }>().toExtend<ContainerNetworkAllowList>()
    expectTypeOf<{ allow: string[]; resolve: (host: string) => Promise<string[]> }>().toExtend<ContainerNetworkAllowList>()
    expectTypeOf<{ allow: string }>().not.toExtend<ContainerNetworkAllowList>()
    expectTypeOf<ContainerBashConfig['cpus']>().toEqualTypeOf<number | undefined>()
    expectTypeOf<ContainerFacts['cpus']>().toEqualTypeOf<number | null>()
    expectTypeOf<'network-unavailable'>().toExtend<ContainerUnavailableCause>()
    expectTypeOf<ContainerBashConfig['protectAgent']>().toEqualTypeOf<boolean | undefined>()
    expectTypeOf<ContainerFacts['agentInspectable']>().toEqualTypeOf<boolean | null>()
  })
})
