import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadTools, useScratch } from './test-support.js'

const { scratch } = useScratch('tool-bash-env-')
const hook = join(scratch, 'hook.sh')
const sourced = join(scratch, 'hook-was-sourced')
const planted: Record<string, string> = {
  BASH_ENV: hook,
  ENV: hook,
  DSH_TEST_API_TOKEN: 'ghp_not_for_the_model',
  DSH_TEST_DEPLOY_KEY: 'also-secret',
  CI_JOB_TOKEN: 'allowed-by-the-deployment',
  DSH_TEST_PLAIN: 'plain value',
  DSH_TEST_NAMED: 'named by the deployment',
  SSHPASS: 'hunter2',
  REDIS_URL: 'redis://:pw@cache:6379',
  'BASH_FUNC_echo%%': `() { builtin echo hijacked; touch ${sourced}; }`,
}
const saved = new Map<string, string | undefined>()

beforeAll(() => {
  writeFileSync(hook, `touch ${sourced}\necho "hook ran"\n`)
  for (const [name, value] of Object.entries(planted)) {
    saved.set(name, process.env[name])
    process.env[name] = value
  }
})
afterAll(() => {
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
})

describe('the environment a command sees through the tool', () => {
  it('does not source BASH_ENV or ENV, passes only allow-listed host variables, never exported functions', async () => {
    // The executor takes the environment when it loads, so the variables above are in place before this.
    await using loaded = await loadTools({ executor: { cwd: scratch, allowEnv: ['CI_JOB_TOKEN', 'DSH_TEST_NAMED'] } })
    const result = await loaded.call('bash', {
      command: [
        'echo "BASH_ENV=[${BASH_ENV-unset}] ENV=[${ENV-unset}]"',
        'echo "token=[${DSH_TEST_API_TOKEN-unset}] key=[${DSH_TEST_DEPLOY_KEY-unset}]"',
        'echo "ci=[${CI_JOB_TOKEN-unset}] plain=[${DSH_TEST_PLAIN-unset}] named=[${DSH_TEST_NAMED-unset}]"',
        'echo "sshpass=[${SSHPASS-unset}] redis=[${REDIS_URL-unset}] path=[${PATH:+set}]"',
        'echo "NO_COLOR=$NO_COLOR TERM=$TERM PAGER=$PAGER GIT_PAGER=$GIT_PAGER"',
        'env | grep -c "^BASH_FUNC_" || true',
      ].join('; '),
    })
    expect(loaded.text(result)).toBe(
      [
        'BASH_ENV=[unset] ENV=[unset]',
        'token=[unset] key=[unset]',
        'ci=[allowed-by-the-deployment] plain=[unset] named=[named by the deployment]',
        'sshpass=[unset] redis=[unset] path=[set]',
        'NO_COLOR=1 TERM=dumb PAGER=cat GIT_PAGER=cat',
        '0',
      ].join('\n'),
    )
    // A nested bash would source BASH_ENV if it were still set.
    const nested = await loaded.call('bash', { command: "bash -c 'echo nested'" })
    expect(loaded.text(nested)).toBe('nested')
    expect(existsSync(sourced)).toBe(false)
  })
})
