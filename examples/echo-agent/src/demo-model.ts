import type { DshErrorCode } from '@dsh/tools-core'
import type { ModelTurnContext, ScriptedModel, ScriptedSession, ScriptedToolCall } from '@dsh/tools-testing'

/**
 * What a call of the script should end as: `ok`, or the error code of its result (a core code, or a tool's own
 * such as `BASH_SPAWN_FAILED`).
 */
export type ExpectedOutcome = 'ok' | DshErrorCode

/** One tool call of the demo script, with the outcome the script is written for. */
export interface DemoCall {
  /** The tool the model calls (it may not exist). */
  readonly name: string
  /** The arguments, as a model would send them (they may be wrong). */
  readonly arguments: unknown
  /** How the call should end. */
  readonly expect: ExpectedOutcome
}

/**
 * One model turn: what the model says, and its calls. `calls` may be a function of the session so far, so the
 * model can react to results: correct its arguments after `INVALID_ARGS`, use the task id a background command
 * returned. A function that returns no calls ends the session (the model gives its final answer).
 */
export interface DemoStep {
  /** What the model tells the user before calling tools. */
  readonly say: string
  /** The calls of this turn. */
  readonly calls: readonly DemoCall[] | ((context: ModelTurnContext) => readonly DemoCall[] | Promise<readonly DemoCall[]>)
}

/** The scripted model for the demo, and the check of a finished session against the script. */
export interface DemoModel {
  /** The model `runScriptedSession` plays. */
  readonly model: ScriptedModel
  /** Where the session did not go as scripted (empty when it did). */
  check(session: ScriptedSession): string[]
}

function callId(step: number, index: number): string {
  return `call_${step}${String.fromCharCode(97 + index)}`
}

/**
 * Turns the demo steps into a scripted model: step `n` answers turn `n`, with call ids `call_<n><a, b, …>`, and
 * `onTurn` hears what the model says before its calls run. Each call's expected outcome is recorded, so `check`
 * can compare the finished session with the script: every step played, every call ended as written.
 */
export function createDemoModel(steps: readonly DemoStep[], onTurn: (step: number, say: string) => void): DemoModel {
  const expected = new Map<string, ExpectedOutcome>()

  const model: ScriptedModel = async (context) => {
    const step = steps[context.step - 1]
    if (step === undefined) return undefined
    const calls = typeof step.calls === 'function' ? await step.calls(context) : step.calls
    if (calls.length === 0) return []
    onTurn(context.step, step.say)
    return calls.map((call, index): ScriptedToolCall => {
      const id = callId(context.step, index)
      expected.set(id, call.expect)
      return { id, name: call.name, arguments: call.arguments }
    })
  }

  const check = (session: ScriptedSession): string[] => {
    const problems: string[] = []
    for (const played of session.steps) {
      played.calls.forEach((call, index) => {
        const result = played.results[index]
        const outcome = result === undefined ? 'no result' : result.isError ? (result.error?.code ?? 'TOOL_FAILED') : 'ok'
        const wanted = expected.get(call.id)
        if (outcome !== wanted) problems.push(`${call.id} (${call.name}) ended as ${outcome}, the script expects ${wanted ?? 'no such call'}`)
      })
    }
    if (session.stopReason !== 'done') problems.push(`the session stopped early: ${session.stopReason}`)
    else if (session.steps.length !== steps.length) {
      problems.push(`the model stopped after step ${session.steps.length} of ${steps.length}: a turn did not see what it reacts to`)
    }
    return problems
  }

  return { model, check }
}
