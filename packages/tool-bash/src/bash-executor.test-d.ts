import { Context } from 'cordis'
import { describe, expectTypeOf, it } from 'vitest'
import {
  LocalBashExecutor,
  type BashExecutor,
  type BashResult,
  type BashTask,
  type BashTaskOutcome,
  type BashSpawnError,
  type LocalBashConfig,
  type ResolvedBashRequest,
} from './index.js'

describe('types', () => {
  it('augments Context with the bash service', () => {
    expectTypeOf<Context['bash']>().toEqualTypeOf<BashExecutor>()
    expectTypeOf<BashExecutor['run']>().returns.toEqualTypeOf<Promise<BashResult>>()
    expectTypeOf<BashExecutor['start']>().returns.toEqualTypeOf<Promise<BashTask>>()
    expectTypeOf<BashExecutor['resolve']>().returns.toEqualTypeOf<Promise<ResolvedBashRequest>>()
  })

  it('lets the local executor stand in for the seam and be loaded with its config', () => {
    expectTypeOf<LocalBashExecutor>().toMatchTypeOf<BashExecutor>()
    const ctx = new Context()
    ctx.plugin(LocalBashExecutor, { defaultTimeoutMs: 1_000, allowEnv: ['CI_JOB_TOKEN'] })
    ctx.plugin(LocalBashExecutor)
    // @ts-expect-error unknown keys are a type error as well as a load error
    ctx.plugin(LocalBashExecutor, { timeout: 5 })
    expectTypeOf<LocalBashConfig['env']>().toEqualTypeOf<Readonly<Record<string, string>> | undefined>()
  })

  it('narrows a task outcome by status', () => {
    const outcome = {} as BashTaskOutcome
    if (outcome.status === 'completed') expectTypeOf(outcome.result).toEqualTypeOf<BashResult>()
    else expectTypeOf(outcome.error).toEqualTypeOf<BashSpawnError>()
  })

  it('keeps results plain data', () => {
    expectTypeOf<BashResult['exitCode']>().toEqualTypeOf<number | null>()
    expectTypeOf<BashResult['signal']>().toEqualTypeOf<string | null>()
    expectTypeOf<BashResult['stopReason']>().toEqualTypeOf<'timeout' | 'abort' | 'kill' | 'dispose' | null>()
  })
})
