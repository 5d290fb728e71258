import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { BashConfigError } from '@dsh/tool-bash'
import { afterAll, describe, expect, it } from 'vitest'
import { DEFAULT_HIDDEN_HOME_PATHS, SANDBOX_DEFAULTS, resolveSandboxedBashConfig } from './sandbox-config.js'

const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-sbx-config-')))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

describe('resolveSandboxedBashConfig', () => {
  it('defaults: the cwd is the one writable root, default secrets hidden, git protected, network off, fail closed', () => {
    const resolved = resolveSandboxedBashConfig({ cwd: scratch })
    expect(resolved.policy.writableRoots).toEqual([scratch])
    expect(resolved.policy.hiddenPaths).toContain(join(homedir(), '.ssh'))
    expect(resolved.policy.hiddenPaths).toHaveLength(DEFAULT_HIDDEN_HOME_PATHS.length)
    expect(resolved.policy.protectGit).toBe(true)
    expect(resolved.policy.tmpSizeBytes).toBe(SANDBOX_DEFAULTS.tmpSizeBytes)
    expect(resolved.onUnavailable).toBe('fail')
    expect(resolved.resourceLimits).toBe('auto')
    expect(resolved.local.cwd).toBe(scratch)
  })

  it('canonicalises writable roots and hidden paths before they are mounted (a symlink names its target)', () => {
    mkdirSync(join(scratch, 'real'))
    symlinkSync(join(scratch, 'real'), join(scratch, 'link'))
    const resolved = resolveSandboxedBashConfig({ cwd: scratch, writableRoots: ['link'], hiddenPaths: ['/nonexistent/x'], hideDefaultSecrets: false })
    expect(resolved.policy.writableRoots).toEqual([scratch, join(scratch, 'real')])
    expect(resolved.policy.hiddenPaths).toEqual(['/nonexistent/x'])
  })

  it('lists every problem at once, and passes the local keys on to the local rules', () => {
    let error: unknown
    try {
      resolveSandboxedBashConfig({ cwd: scratch, tmpSizeBytes: 5, protectGit: 'yes', network: 'on', maxTimeoutMs: -1, resourceLimits: 'cgroups' })
    } catch (thrown) {
      error = thrown
    }
    expect(BashConfigError.isInstance(error)).toBe(true)
    const issues = (error as BashConfigError).issues.join('\n')
    expect(issues).toContain(`resourceLimits: must be 'auto', 'cgroup' or 'rlimit', got "cgroups"`)
    for (const key of ['maxTimeoutMs', 'tmpSizeBytes', 'protectGit', 'network', 'resourceLimits']) expect(issues).toContain(`${key}:`)
  })
})
