import type { ToolExecution, ToolExecutionResult } from '@dsh/tools-core'
import type { Context, Plugin } from 'cordis'
import { describe, expectTypeOf, it } from 'vitest'
import TimeoutPolicyDefault, {
  Config,
  TimeoutPolicy,
  ToolTimeoutAbandonedError,
  ToolTimeoutError,
  TimeoutPolicyConfigError,
  apply,
  resolveTimeoutBudget,
  resolveTimeoutPolicyConfig,
  type LateSettlement,
  type ResolvedTimeoutPolicyConfig,
} from './index.js'

declare const ctx: Context

describe('the plugin', () => {
  it('is a cordis plugin object, also the default export', () => {
    expectTypeOf(TimeoutPolicy).toExtend<Plugin.Object<Config | undefined>>()
    expectTypeOf(TimeoutPolicyDefault).toEqualTypeOf(TimeoutPolicy)
    expectTypeOf(apply).parameter(0).toEqualTypeOf<Context>()
    expectTypeOf(apply).parameter(1).toEqualTypeOf<Config | undefined>()
  })

  it('loads with or without a configuration, and checks its keys and types', () => {
    void ctx.plugin(TimeoutPolicy)
    void ctx.plugin(TimeoutPolicy, { defaultTimeoutMs: 30_000, maxTimeoutMs: 600_000, graceMs: 5_000 })
    // @ts-expect-error: unknown key
    void ctx.plugin(TimeoutPolicy, { timeoutMs: 1000 })
    // @ts-expect-error: budgets are numbers of milliseconds
    void ctx.plugin(TimeoutPolicy, { graceMs: '5s' })
  })

  it('Config is both the options interface and the schema cordis validates with', () => {
    const options: Config = { graceMs: 1 }
    expectTypeOf(options.defaultTimeoutMs).toEqualTypeOf<number | undefined>()
    expectTypeOf(Config['~standard'].validate).returns.toEqualTypeOf<{ readonly value: ResolvedTimeoutPolicyConfig }>()
    expectTypeOf(resolveTimeoutPolicyConfig).parameter(0).toBeUnknown()
    expectTypeOf(resolveTimeoutPolicyConfig).returns.toEqualTypeOf<ResolvedTimeoutPolicyConfig>()
    expectTypeOf<ResolvedTimeoutPolicyConfig['graceMs']>().toBeNumber()
    expectTypeOf(resolveTimeoutBudget).returns.toEqualTypeOf<number | undefined>()
  })
})

describe('timeout/late-settlement', () => {
  it('is a typed cordis event whose payload narrows on status', () => {
    ctx.on('timeout/late-settlement', (settlement) => {
      expectTypeOf(settlement).toEqualTypeOf<LateSettlement>()
      expectTypeOf(settlement.lateByMs).toBeNumber()
      expectTypeOf(settlement.execution).toEqualTypeOf<Readonly<ToolExecution>>()
      if (settlement.status === 'fulfilled') expectTypeOf(settlement.result).toEqualTypeOf<ToolExecutionResult>()
      else expectTypeOf(settlement.reason).toBeUnknown()
      // @ts-expect-error: result only exists when fulfilled
      void settlement.result
    })
  })
})

describe('errors', () => {
  it('carry their codes and budgets', () => {
    expectTypeOf<ToolTimeoutError['code']>().toEqualTypeOf<'TOOL_TIMEOUT'>()
    expectTypeOf<ToolTimeoutError['timeoutMs']>().toBeNumber()
    expectTypeOf<ToolTimeoutAbandonedError['code']>().toEqualTypeOf<'TOOL_TIMEOUT_ABANDONED'>()
    expectTypeOf<ToolTimeoutAbandonedError['graceMs']>().toBeNumber()
    expectTypeOf<TimeoutPolicyConfigError['code']>().toEqualTypeOf<'INVALID_CONFIG'>()
    expectTypeOf<TimeoutPolicyConfigError['issues']>().toEqualTypeOf<readonly string[]>()
    const value: unknown = undefined
    if (ToolTimeoutError.isInstance(value)) expectTypeOf(value).toEqualTypeOf<ToolTimeoutError>()
  })
})
