// The guard stage of the pipeline: deny-only checks after the whole pre-execute waterfall, before any person is
// asked, and once more after a granted approval (state may have changed while the person decided).
import type { ToolExecutionResult, ToolGuard } from '@dsh/tools-core'
import { describeThrown, describeValue, isThenable, quote } from './describe-value.js'
import type { PipelineExecution } from './execution.js'
import { denied, HARNESS_FAULT, invalidDecision } from './results.js'
import type { ToolCatalog } from './tool-catalog.js'

/** Where a misbehaving guard is reported (never throws). */
type Warn = (message: string, cause?: unknown) => void

/** The global guards, then the call's agent's: the first reason denies. Returns the denial, or `undefined`. */
export function checkGuards(catalog: ToolCatalog, exec: PipelineExecution, warn: Warn): ToolExecutionResult | undefined {
  return runGuards(catalog.globalGuards, exec, warn) ?? runGuards(catalog.scopeGuards(exec.agent), exec, warn)
}

/** Deny-only guards: the first reason denies (`GUARD_DENIED`); a throw or a non-reason fails closed. */
function runGuards(guards: readonly ToolGuard[], exec: PipelineExecution, warn: Warn): ToolExecutionResult | undefined {
  for (const guard of guards) {
    let verdict: unknown
    try {
      verdict = guard(exec)
    } catch (error) {
      warn(`a guard threw while checking ${quote(exec.name)}`, error)
      return invalidDecision(
        exec.callId,
        `The call to ${quote(exec.name)} was not run: a guard of the harness failed (it threw ${describeThrown(error)}). ${HARNESS_FAULT}`,
      )
    }
    if (verdict === undefined) continue
    if (typeof verdict === 'string' && verdict.trim() !== '') {
      return denied(exec.callId, 'GUARD_DENIED', `The call to ${quote(exec.name)} was denied by a guard: ${verdict}`)
    }
    if (isThenable(verdict)) {
      // An async guard cannot be honoured; keep its eventual rejection from going unhandled.
      Promise.resolve(verdict).then(undefined, (error: unknown) => warn('an async guard rejected', error))
    }
    warn(`a guard returned ${describeValue(verdict)} while checking ${quote(exec.name)}`)
    return invalidDecision(
      exec.callId,
      `The call to ${quote(exec.name)} was not run: a guard of the harness failed (it returned ${describeValue(verdict)}, ` +
        `not a reason to deny or undefined). ${HARNESS_FAULT}`,
    )
  }
  return undefined
}
