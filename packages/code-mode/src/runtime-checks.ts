import type { CodeCallOutcome, CodeLimits } from './code-runtime.js'

/** Why `limits` cannot be used (`limits.cpuMs must be a positive number`), or `undefined`: every runtime checks them. */
export function checkLimits(limits: CodeLimits): string | undefined {
  for (const key of ['memoryBytes', 'cpuMs', 'wallMs', 'stackBytes', 'maxArgBytes', 'maxLogBytes', 'maxValueBytes'] as const) {
    const value: unknown = limits?.[key]
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return `limits.${key} must be a positive number`
  }
  return undefined
}

/**
 * What a bridge's `call` gave, as the outcome a program may receive: a copy of its own fields when it has the
 * seam's shape, else `TOOL_FAILED` (a bridge that throws or answers nonsense never reaches the program as it is).
 */
export function checkCallOutcome(outcome: unknown): CodeCallOutcome {
  const candidate = outcome as CodeCallOutcome | undefined
  if (candidate?.ok === true && typeof candidate.json === 'string') return { ok: true, json: candidate.json }
  if (candidate?.ok === false && typeof candidate.error === 'object' && candidate.error !== null) {
    const { name, code, message } = candidate.error
    if (typeof name === 'string' && typeof code === 'string' && typeof message === 'string') return { ok: false, error: { name, code, message } }
  }
  return { ok: false, error: { name: 'Error', code: 'TOOL_FAILED', message: 'the sub-call failed in the host' } }
}
