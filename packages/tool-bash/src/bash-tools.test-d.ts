import type { TerminalResultMeta } from '@dsh/tools-presentation'
import type { Context, Plugin } from 'cordis'
import { describe, expectTypeOf, it } from 'vitest'
import {
  BashAbortedError,
  BashTaskLimitError,
  BashTools,
  BashToolsConfigError,
  LocalBashTools,
  UnknownBashTaskError,
  formatBashResult,
  formatBashTaskOutput,
  resolveBashToolsConfig,
  type BashAbortReason,
  type BashResult,
  type BashRunMeta,
  type BashStartMeta,
  type BashTaskMeta,
  type BashTaskOutcome,
  type BashTaskOutput,
  type BashToolsConfig,
  type LocalBashToolsConfig,
  type ResolvedBashToolsConfig,
} from './index.js'

declare const ctx: Context

describe('the plugins', () => {
  it('are cordis plugin objects whose config is typed', () => {
    expectTypeOf(BashTools).toExtend<Plugin.Object<BashToolsConfig | undefined>>()
    expectTypeOf(LocalBashTools).toExtend<Plugin.Object<LocalBashToolsConfig | undefined>>()
    void ctx.plugin(BashTools)
    void ctx.plugin(BashTools, { maxBackgroundTasks: 4, maxFinishedTasks: 8, notifyOnCompletion: false })
    // @ts-expect-error: unknown key
    void ctx.plugin(BashTools, { maxTasks: 4 })
    // @ts-expect-error: a count is a number
    void ctx.plugin(BashTools, { maxBackgroundTasks: '4' })
    void ctx.plugin(LocalBashTools, { executor: { cwd: '/srv', killGraceMs: 500 }, tools: { maxBackgroundTasks: 2 } })
    // @ts-expect-error: executor keys are checked too
    void ctx.plugin(LocalBashTools, { executor: { timeout: 5 } })
  })

  it('Config validates to the resolved configuration', () => {
    expectTypeOf(BashTools.Config['~standard'].validate).returns.toEqualTypeOf<{ readonly value: ResolvedBashToolsConfig }>()
    expectTypeOf(resolveBashToolsConfig).parameter(0).toBeUnknown()
    expectTypeOf<ResolvedBashToolsConfig['maxBackgroundTasks']>().toBeNumber()
    expectTypeOf<ResolvedBashToolsConfig['notifyOnCompletion']>().toBeBoolean()
  })
})

describe('results', () => {
  it('run meta is a TerminalResultMeta with more', () => {
    expectTypeOf<BashRunMeta>().toExtend<TerminalResultMeta>()
    expectTypeOf<BashRunMeta['durationMs']>().toBeNumber()
    expectTypeOf<BashRunMeta['stdout']['spillPath']>().toEqualTypeOf<string | null>()
    expectTypeOf<BashStartMeta['status']>().toEqualTypeOf<'running'>()
    expectTypeOf<BashTaskMeta['status']>().toEqualTypeOf<'running' | 'completed' | 'failed'>()
    expectTypeOf<BashTaskMeta['exitCode']>().toEqualTypeOf<number | null | undefined>()
  })

  it('the formatters take executor data and return the model-facing text', () => {
    expectTypeOf(formatBashResult).toEqualTypeOf<(result: BashResult) => string>()
    expectTypeOf(formatBashTaskOutput).toEqualTypeOf<
      (taskId: string, output: BashTaskOutput, outcome: BashTaskOutcome | undefined) => string
    >()
  })

  it('errors carry their extra fields', () => {
    expectTypeOf<BashAbortedError['reason']>().toEqualTypeOf<BashAbortReason>()
    expectTypeOf<BashAbortReason>().toEqualTypeOf<'abort' | 'dispose'>()
    expectTypeOf<UnknownBashTaskError['taskId']>().toBeString()
    expectTypeOf<BashTaskLimitError['limit']>().toBeNumber()
    expectTypeOf<BashToolsConfigError['issues']>().toEqualTypeOf<readonly string[]>()
  })
})
