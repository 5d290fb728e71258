import { DshError, findUnbrandedErrorClasses } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import * as api from './index.js'

describe('public surface', () => {
  it('brands every exported error class', async () => {
    expect(findUnbrandedErrorClasses(await import('./index.js'))).toEqual([])
  })

  it('exports exactly the documented runtime values', () => {
    expect(Object.keys(api).sort()).toEqual(
      [
        'BashConfigError',
        'BashRequestError',
        'BashSpawnError',
        'DEFAULT_ALLOWED_ENV',
        'EXPORTED_FUNCTION_PREFIX',
        'FIXED_ENV',
        'LOCAL_BASH_DEFAULTS',
        'LocalBashExecutor',
        'SECRET_ENV_PATTERNS',
        'SHELL_HOOK_ENV_NAMES',
        'createCommandEnvironment',
        'isSecretEnvName',
        'isShellHookEnvName',
        'resolveLocalBashConfig',
      ].sort(),
    )
  })

  it('errors carry their code, name and brand, and cross boundaries as data', () => {
    const errors = [
      [new api.BashConfigError(['x: bad']), 'INVALID_CONFIG', api.BashConfigError],
      [new api.BashRequestError('command', 'bad'), 'INVALID_ARGS', api.BashRequestError],
      [new api.BashSpawnError('bad', '/tmp'), 'SPAWN_FAILED', api.BashSpawnError],
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

  it('freezes the documented lists', () => {
    expect(Object.isFrozen(api.SECRET_ENV_PATTERNS)).toBe(true)
    expect(Object.isFrozen(api.SHELL_HOOK_ENV_NAMES)).toBe(true)
    expect(Object.isFrozen(api.FIXED_ENV)).toBe(true)
    expect(Object.isFrozen(api.LOCAL_BASH_DEFAULTS)).toBe(true)
  })
})
