import { DshError, findUnbrandedErrorClasses, isErrorCode, isToolErrorCode } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import * as api from './index.js'

describe('public surface', () => {
  it('brands every exported error class', async () => {
    expect(findUnbrandedErrorClasses(await import('./index.js'))).toEqual([])
  })

  it('exports exactly the documented runtime values', () => {
    expect(Object.keys(api).sort()).toEqual(
      [
        'BASH_ERROR_CODES',
        'BASH_GUIDANCE_ID',
        'BASH_TOOLS_DEFAULTS',
        'BashAbortedError',
        'BashConfigError',
        'BashRequestError',
        'BashSpawnError',
        'BashTaskLimitError',
        'BashTools',
        'BashToolsConfigError',
        'ByteWindow',
        'DEFAULT_ALLOWED_ENV',
        'EXPORTED_FUNCTION_PREFIX',
        'FIXED_ENV',
        'LOCAL_BASH_DEFAULTS',
        'LocalBashExecutor',
        'LocalBashTools',
        'SECRET_ENV_PATTERNS',
        'SHELL_HOOK_ENV_NAMES',
        'UnknownBashTaskError',
        'bashGuidance',
        'createCommandEnvironment',
        'formatBashResult',
        'formatBashTaskOutput',
        'isSecretEnvName',
        'isShellHookEnvName',
        'resolveBashToolsConfig',
        'resolveLocalBashConfig',
        'resolveLocalBashToolsConfig',
      ].sort(),
    )
  })

  it('errors carry their code, name and brand, and cross boundaries as data', () => {
    const errors = [
      [new api.BashConfigError(['x: bad']), 'INVALID_CONFIG', api.BashConfigError],
      [new api.BashRequestError('command', 'bad'), 'INVALID_ARGS', api.BashRequestError],
      [new api.BashSpawnError('bad', '/tmp'), 'BASH_SPAWN_FAILED', api.BashSpawnError],
      [new api.BashToolsConfigError(['x: bad']), 'INVALID_CONFIG', api.BashToolsConfigError],
      [new api.BashAbortedError('abort', 'stopped'), 'ABORTED', api.BashAbortedError],
      [new api.UnknownBashTaskError('bash_1', 'no such task'), 'BASH_UNKNOWN_TASK', api.UnknownBashTaskError],
      [new api.BashTaskLimitError(8, 'too many'), 'BASH_TASK_LIMIT', api.BashTaskLimitError],
    ] as const
    for (const [error, code, klass] of errors) {
      expect(error.code).toBe(code)
      expect(error.toInfo()).toEqual({ name: klass.name, code })
      expect(klass.isInstance(error)).toBe(true)
      expect(DshError.isInstance(error)).toBe(true)
      expect(klass.isInstance(new Error('plain'))).toBe(false)
    }
    expect(api.BashConfigError.isInstance(new api.BashSpawnError('bad', '/tmp'))).toBe(false)
  })

  it('owns its codes in the BASH family, none of them a core code', () => {
    expect(api.BASH_ERROR_CODES).toEqual({
      SPAWN_FAILED: 'BASH_SPAWN_FAILED',
      UNKNOWN_TASK: 'BASH_UNKNOWN_TASK',
      TASK_LIMIT: 'BASH_TASK_LIMIT',
    })
    expect(Object.isFrozen(api.BASH_ERROR_CODES)).toBe(true)
    for (const code of Object.values(api.BASH_ERROR_CODES)) {
      expect(isToolErrorCode(code), code).toBe(true)
      expect(isErrorCode(code), code).toBe(false)
    }
  })

  it('freezes the documented lists', () => {
    expect(Object.isFrozen(api.SECRET_ENV_PATTERNS)).toBe(true)
    expect(Object.isFrozen(api.SHELL_HOOK_ENV_NAMES)).toBe(true)
    expect(Object.isFrozen(api.FIXED_ENV)).toBe(true)
    expect(Object.isFrozen(api.LOCAL_BASH_DEFAULTS)).toBe(true)
    expect(Object.isFrozen(api.BASH_TOOLS_DEFAULTS)).toBe(true)
    expect(Object.isFrozen(api.BashTools)).toBe(true)
    expect(Object.isFrozen(api.LocalBashTools)).toBe(true)
  })
})
