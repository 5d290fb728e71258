import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { BashConfigError } from './bash-config-error.js'
import { LOCAL_BASH_DEFAULTS, resolveLocalBashConfig } from './local-bash-config.js'

const scratch = mkdtempSync(join(tmpdir(), 'tool-bash-config-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

function issuesOf(config: unknown): readonly string[] {
  try {
    resolveLocalBashConfig(config)
  } catch (error) {
    if (BashConfigError.isInstance(error)) {
      expect(error.code).toBe('INVALID_CONFIG')
      return error.issues
    }
    throw error
  }
  throw new Error('expected the config to be rejected')
}

describe('resolveLocalBashConfig', () => {
  it('fills in the defaults', () => {
    const config = resolveLocalBashConfig()
    expect(config).toMatchObject({
      cwd: process.cwd(),
      defaultTimeoutMs: 120_000,
      maxTimeoutMs: 600_000,
      backgroundTimeoutMs: 600_000,
      killGraceMs: LOCAL_BASH_DEFAULTS.killGraceMs,
      outputWindowBytes: 32_768,
      spillCapBytes: 268_435_456,
      tempDir: tmpdir(),
      allowEnv: [],
      denyEnv: [],
      env: {},
    })
    expect(config.shell).toMatch(/\/bash$/)
    expect(Object.isFrozen(config)).toBe(true)
    expect(resolveLocalBashConfig(null)).toEqual(config)
  })

  it('keeps the default timeout within a smaller maximum and resolves relative paths', () => {
    const config = resolveLocalBashConfig({ maxTimeoutMs: 5_000, cwd: '.', tempDir: scratch })
    expect(config.defaultTimeoutMs).toBe(5_000)
    expect(config.backgroundTimeoutMs).toBe(5_000)
    expect(config.cwd).toBe(process.cwd())
  })

  it('accepts a full valid config', () => {
    const config = resolveLocalBashConfig({
      cwd: scratch,
      shell: '/bin/bash',
      defaultTimeoutMs: 1_000,
      maxTimeoutMs: 2_000,
      backgroundTimeoutMs: 1_500,
      killGraceMs: 0,
      outputWindowBytes: 8,
      spillCapBytes: 0,
      tempDir: scratch,
      allowEnv: ['CI_JOB_TOKEN', 'PUBLIC_*'],
      denyEnv: ['INTERNAL_*'],
      env: { GIT_TERMINAL_PROMPT: '0' },
    })
    expect(config).toMatchObject({ shell: '/bin/bash', killGraceMs: 0, outputWindowBytes: 8, env: { GIT_TERMINAL_PROMPT: '0' } })
  })

  it('rejects a config that is not a plain object', () => {
    expect(issuesOf('nope')).toEqual(['config: must be a plain object'])
    expect(issuesOf([1])).toEqual(['config: must be a plain object'])
  })

  it('lists every problem, each naming its key', () => {
    const issues = issuesOf({
      defaultTimeoutMs: 0,
      maxTimeoutMs: 2 ** 31,
      killGraceMs: 1.5,
      outputWindowBytes: 4,
      spillCapBytes: -1,
      allowEnv: 'X',
      denyEnv: ['OK', 'A=B', ''],
      timeout: 5,
    })
    expect(issues).toEqual([
      expect.stringMatching(/^timeout: unknown key/),
      expect.stringMatching(/^maxTimeoutMs: must be an integer from 1 to 2147483647, got 2147483648/),
      expect.stringMatching(/^defaultTimeoutMs: must be an integer from 1 to 600000, got 0/),
      expect.stringMatching(/^killGraceMs: must be an integer from 0 to 60000, got 1.5/),
      expect.stringMatching(/^outputWindowBytes: must be an integer from 8/),
      expect.stringMatching(/^spillCapBytes: must be an integer from 0/),
      expect.stringMatching(/^allowEnv: must be an array/),
      expect.stringMatching(/^denyEnv\[1\]: must be a variable name/),
      expect.stringMatching(/^denyEnv\[2\]: must be a variable name/),
    ])
  })

  it('rejects a default or background timeout above the maximum', () => {
    expect(issuesOf({ maxTimeoutMs: 1_000, defaultTimeoutMs: 1_001, backgroundTimeoutMs: 5_000 })).toEqual([
      expect.stringMatching(/^defaultTimeoutMs: must be an integer from 1 to 1000, got 1001/),
      expect.stringMatching(/^backgroundTimeoutMs: must be an integer from 1 to 1000, got 5000/),
    ])
  })

  it('rejects a cwd or tempDir that is missing or not a directory', () => {
    const file = join(scratch, 'file.txt')
    writeFileSync(file, 'x')
    expect(issuesOf({ cwd: join(scratch, 'missing'), tempDir: file })).toEqual([
      `cwd: ${join(scratch, 'missing')} does not exist`,
      `tempDir: ${file} is not a directory`,
    ])
    expect(issuesOf({ cwd: '' })).toEqual(['cwd: must be a non-empty path, got ""'])
  })

  it('rejects a shell that is missing, not executable or not on PATH', () => {
    const notExecutable = join(scratch, 'not-executable')
    writeFileSync(notExecutable, '#!/bin/sh\n')
    chmodSync(notExecutable, 0o644)
    expect(issuesOf({ shell: notExecutable })).toEqual([`shell: ${notExecutable} is not an executable file`])
    expect(issuesOf({ shell: './no-such-shell' })).toEqual([expect.stringMatching(/no-such-shell is not an executable file$/)])
    expect(issuesOf({ shell: 'no-such-shell-anywhere' })).toEqual(['shell: no-such-shell-anywhere was not found on PATH'])
    expect(issuesOf({ shell: 42 })).toEqual(['shell: must be a path or a command name, got 42'])
  })

  it('rejects env entries that are not plain variables or that the executor controls', () => {
    expect(
      issuesOf({ env: { 'BAD-NAME': 'x', BASH_ENV: '/tmp/x', BASH_FUNC_ls: 'x', TERM: 'xterm', NUMBER: 1, NUL: 'a\0b' } }),
    ).toEqual([
      'env.BAD-NAME: not a valid variable name',
      'env.BASH_ENV: may not be set (the executor controls it)',
      'env.BASH_FUNC_ls: may not be set (the executor controls it)',
      'env.TERM: may not be set (the executor controls it)',
      'env.NUMBER: must be a string without NUL bytes, got 1',
      'env.NUL: must be a string without NUL bytes, got "a\\u0000b"',
    ])
    expect(issuesOf({ env: ['A=B'] })).toEqual(['env: must be an object of string variables, got an array'])
  })
})
