import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  FIXED_ENV,
  SHELL_HOOK_ENV_NAMES,
  compileEnvPatterns,
  createCommandEnvironment,
  isSecretEnvName,
  isShellHookEnvName,
} from './command-environment.js'

describe('isSecretEnvName', () => {
  it.each([
    'GITHUB_TOKEN',
    'NPM_TOKEN',
    'HF_TOKEN',
    'github_token',
    'OPENAI_API_KEY',
    'ANTHROPIC_API_KEY',
    'STRIPE_SECRET',
    'CLIENT_SECRET_VALUE',
    'PGPASSWORD',
    'DB_PASSWORD',
    'MYSQL_PWD',
    'SMTP_PASS',
    'GPG_PASSPHRASE',
    'GOOGLE_APPLICATION_CREDENTIALS',
    'AWS_ACCESS_KEY_ID',
    'AWS_PROFILE',
    'AZURE_CLIENT_ID',
    'GCP_PROJECT_KEYFILE',
    'SSH_PRIVATE_KEY_PATH',
    'DEPLOY_KEYS',
    'NPM_CONFIG__AUTH',
    'HTTP_AUTHORIZATION',
    'SESSION_COOKIE',
    'SLACK_WEBHOOK_URL',
    'CI_JOB_JWT',
    'DATABASE_URL',
    'AZURE_STORAGE_CONNECTION_STRING',
    'SENTRY_DSN',
    'GH_PAT',
    'OP_SESSION_my',
    'DOCKER_AUTH_CONFIG',
  ])('treats %s as a secret', (name) => {
    expect(isSecretEnvName(name)).toBe(true)
  })

  it.each(['PATH', 'HOME', 'USER', 'LANG', 'PWD', 'OLDPWD', 'SSH_AUTH_SOCK', 'XAUTHORITY', 'KEYTIMEOUT', 'EDITOR', 'GIT_ASKPASS', 'NODE_ENV'])(
    'lets %s through',
    (name) => {
      expect(isSecretEnvName(name)).toBe(false)
    },
  )
})

describe('compileEnvPatterns', () => {
  it('matches whole names, case-insensitively, with * for any run and regex characters taken literally', () => {
    const matches = compileEnvPatterns(['MY_*', 'A.B', 'EXACT'])
    expect(matches('MY_VAR')).toBe(true)
    expect(matches('my_var')).toBe(true)
    expect(matches('XMY_VAR')).toBe(false)
    expect(matches('A.B')).toBe(true)
    expect(matches('AXB')).toBe(false)
    expect(matches('EXACT')).toBe(true)
    expect(matches('EXACTLY')).toBe(false)
    expect(compileEnvPatterns([])('ANYTHING')).toBe(false)
  })
})

describe('createCommandEnvironment', () => {
  const parent = {
    PATH: '/usr/bin:/bin',
    HOME: '/home/me',
    GITHUB_TOKEN: 'ghp_secret',
    OPENAI_API_KEY: 'sk-secret',
    CI_JOB_TOKEN: 'ci-token',
    TOKENIZERS_PARALLELISM: 'false',
    BASH_ENV: '/tmp/evil.sh',
    ENV: '/tmp/evil.sh',
    SHELLOPTS: 'xtrace',
    'BASH_FUNC_ls%%': '() { echo hijacked; }',
    FORCE_COLOR: '3',
    TERM: 'xterm-256color',
    PAGER: 'less',
    UNDEFINED_ONE: undefined,
  }

  it('removes secrets, hooks and exported functions and sets the fixed variables', () => {
    const env = createCommandEnvironment(parent)
    expect(env).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/home/me',
      TOKENIZERS_PARALLELISM: 'false',
      ...FIXED_ENV,
    })
  })

  it('lets allow-listed secrets through, but never hooks', () => {
    const env = createCommandEnvironment(parent, { allowEnv: ['CI_JOB_TOKEN', 'BASH_*', 'ENV'] })
    expect(env['CI_JOB_TOKEN']).toBe('ci-token')
    expect(env['GITHUB_TOKEN']).toBeUndefined()
    expect(env['BASH_ENV']).toBeUndefined()
    expect(env['BASH_FUNC_ls%%']).toBeUndefined()
    expect(env['ENV']).toBeUndefined()
  })

  it('applies extra deny patterns over allows and the defaults', () => {
    const env = createCommandEnvironment(parent, { allowEnv: ['CI_JOB_TOKEN'], denyEnv: ['CI_*', 'HOME', 'TOKENIZERS_*'] })
    expect(env['CI_JOB_TOKEN']).toBeUndefined()
    expect(env['HOME']).toBeUndefined()
    expect(env['TOKENIZERS_PARALLELISM']).toBeUndefined()
    expect(env['PATH']).toBe('/usr/bin:/bin')
  })

  it('adds deployment variables after scrubbing, but cannot override the fixed ones', () => {
    const env = createCommandEnvironment(parent, { env: { DEPLOY_API_KEY: 'set-by-deployment', TERM: 'xterm' } })
    expect(env['DEPLOY_API_KEY']).toBe('set-by-deployment')
    expect(env['TERM']).toBe('dumb')
  })

  it('keeps a variable named __proto__ as a variable', () => {
    const source = JSON.parse('{"__proto__": "x", "PATH": "/bin"}') as Record<string, string>
    const env = createCommandEnvironment(source)
    expect(Object.keys(env)).toContain('__proto__')
    expect(env['__proto__']).toBe('x')
  })

  it('never lets a hook, an exported function or a default secret through, whatever the parent holds', () => {
    const name = fc.oneof(
      fc.constantFrom(...SHELL_HOOK_ENV_NAMES),
      fc.string({ minLength: 1, maxLength: 12 }).map((suffix) => `BASH_FUNC_${suffix}%%`),
      fc.constantFrom('A', 'MY', 'X_Y').chain((prefix) => fc.constantFrom(`${prefix}_TOKEN`, `${prefix}_SECRET`, `${prefix}_KEY`, `${prefix}PASSWORD`)),
      fc.stringMatching(/^[A-Z_]{1,12}$/),
    )
    fc.assert(
      fc.property(fc.dictionary(name, fc.string()), (source) => {
        const env = createCommandEnvironment(source)
        for (const key of Object.keys(env)) {
          expect(isShellHookEnvName(key)).toBe(false)
          if (!Object.hasOwn(FIXED_ENV, key) && key !== 'TOKENIZERS_PARALLELISM') expect(isSecretEnvName(key)).toBe(false)
        }
        for (const [key, value] of Object.entries(FIXED_ENV)) expect(env[key]).toBe(value)
      }),
    )
  })
})
