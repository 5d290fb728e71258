import { BashSpawnError } from '@dsh/tool-bash'
import { DshError, findUnbrandedErrorClasses, isToolErrorCode } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import * as api from './index.js'

describe('public surface', () => {
  it('brands every exported error class', () => {
    expect(findUnbrandedErrorClasses(api)).toEqual([])
  })

  it('exports exactly the documented runtime values', () => {
    expect(Object.keys(api).sort()).toEqual(
      [
        'BPF',
        'DEFAULT_HIDDEN_HOME_PATHS',
        'NetworkProxy',
        'PROXY_CLOSE_BOUND_MS',
        'PROXY_IDLE_TIMEOUT_MS',
        'PROXY_LINGER_MS',
        'PROXY_PORT',
        'ROOT_ONLY_SECRETS',
        'SANDBOX_DEFAULTS',
        'SANDBOX_ERROR_CODES',
        'SECCOMP_AUDIT_ARCH',
        'SECCOMP_DENIED_IOCTLS',
        'SECCOMP_DENIED_SYSCALLS',
        'SECCOMP_RET',
        'SECCOMP_SOCKET',
        'SandboxSetupError',
        'SandboxUnavailableError',
        'SandboxedBashExecutor',
        'buildSandboxProfile',
        'buildSeccompProgram',
        'currentSeccompArch',
        'describeResourceLimits',
        'describeSandboxPolicy',
        'encodeSeccompProgram',
        'inheritableDescriptors',
        'isNetworkAllowed',
        'isPrivateAddress',
        'isWithin',
        'locateCgroups',
        'parseNetworkAllowEntry',
        'policyBlockNote',
        'proxyEnvironment',
        'resolveSandboxedBashConfig',
        'syscallNumber',
        'systemResolver',
      ].sort(),
    )
  })

  it('declares its codes in the SANDBOX family, and a setup failure is still a BashSpawnError', () => {
    expect(Object.values(api.SANDBOX_ERROR_CODES)).toEqual(['SANDBOX_UNAVAILABLE', 'SANDBOX_SETUP_FAILED'])
    for (const code of Object.values(api.SANDBOX_ERROR_CODES)) expect(isToolErrorCode(code)).toBe(true)
    const setup = new api.SandboxSetupError('bwrap: x', '/w')
    expect(BashSpawnError.isInstance(setup)).toBe(true)
    expect(setup.toInfo()).toEqual({ name: 'SandboxSetupError', code: 'SANDBOX_SETUP_FAILED' })
    const unavailable = new api.SandboxUnavailableError('bwrap-missing', 'no bwrap', 'install it')
    expect(DshError.isInstance(unavailable)).toBe(true)
    expect(unavailable.toInfo()).toEqual({ name: 'SandboxUnavailableError', code: 'SANDBOX_UNAVAILABLE' })
    expect(unavailable.message).toBe('the bash sandbox cannot start: no bwrap. Fix: install it')
  })
})
