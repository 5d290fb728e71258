import type { BashResult } from '@dsh/tool-bash'
import { describe, expect, it } from 'vitest'
import { describeSandboxPolicy, policyBlockNote } from './policy-note.js'
import type { SandboxPolicy } from './sandbox-profile.js'

const policy: SandboxPolicy = { writableRoots: ['/work/repo'], hiddenPaths: [], readOnlyPaths: [], protectGit: true, tmpSizeBytes: 1 }

function failed(stderr: string, overrides: Partial<BashResult> = {}): BashResult {
  const stream = (head: string) => ({ head, tail: '', omittedBytes: 0, totalBytes: head.length, spill: null })
  return {
    command: 'x', cwd: '/work/repo', pid: 1, exitCode: 1, signal: null, timedOut: false, aborted: false, stopReason: null,
    timeoutMs: 1, durationMs: 1, outputCutOff: null, stdout: stream(''), stderr: stream(stderr), ...overrides,
  }
}

describe('policyBlockNote', () => {
  it.each([
    ["touch: cannot touch '/etc/x': Read-only file system"],
    ['unshare: unshare failed: Operation not permitted'],
    ["bash: /opt/app/log: Permission denied"],
  ])('notes a write or privilege block: %s', (stderr) => {
    expect(policyBlockNote(failed(stderr), policy)).toMatch(/write only under \/work\/repo, \/tmp/)
  })

  it.each([['curl: (6) Could not resolve host: example.com'], ['npm error getaddrinfo EAI_AGAIN registry.npmjs.org']])(
    'notes a network failure while the network is off: %s',
    (stderr) => expect(policyBlockNote(failed(stderr), policy)).toMatch(/the network is off/),
  )

  it('stays silent for a permission error inside the writable roots, a plain failure, a success or a stopped command', () => {
    expect(policyBlockNote(failed('bash: /work/repo/secret: Permission denied'), policy)).toBeUndefined()
    expect(policyBlockNote(failed('bash: /tmp/x: Permission denied'), policy)).toBeUndefined()
    expect(policyBlockNote(failed('error: test failed'), policy)).toBeUndefined()
    expect(policyBlockNote(failed('Read-only file system', { exitCode: 0 }), policy)).toBeUndefined()
    expect(policyBlockNote(failed('Read-only file system', { stopReason: 'timeout', exitCode: null }), policy)).toBeUndefined()
  })

  it('tells the model the policy is fixed, never how to lower it', () => {
    const note = policyBlockNote(failed('Read-only file system'), policy) ?? ''
    expect(note).toContain('cannot be changed from here')
    expect(describeSandboxPolicy(policy)).toContain('cannot be changed from a command')
  })
})
