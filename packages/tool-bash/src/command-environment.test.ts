import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  DEFAULT_ALLOWED_ENV,
  FIXED_ENV,
  EXPORTED_FUNCTION_PREFIX,
  SHELL_HOOK_ENV_NAMES,
  compileEnvPatterns,
  createCommandEnvironment,
  isSecretEnvName,
  isShellHookEnvName,
} from './command-environment.js'

/** A case-sensitive reading of one allow-list glob, written apart from the implementation. */
function globMatches(pattern: string, name: string): boolean {
  const parts = pattern.split('*')
  if (parts.length === 1) return pattern === name
  const first = parts[0] as string
  const last = parts[parts.length - 1] as string
  if (!name.startsWith(first) || name.length < first.length + last.length) return false
  let at = first.length
  for (const part of parts.slice(1, -1)) {
    const found = name.indexOf(part, at)
    if (found < 0 || found + part.length > name.length - last.length) return false
    at = found + part.length
  }
  return name.endsWith(last)
}

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
    'SSHPASS',
    'REDIS_URL',
    'MONGODB_URI',
    'POSTGRES_URL',
    'GOOGLE_CLOUD_KEYFILE_JSON',
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

  it('passes only the core allow list by default, without hooks, and sets the fixed variables', () => {
    const env = createCommandEnvironment(parent)
    expect(env).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/home/me',
      ...FIXED_ENV,
    })
  })

  it('withholds the credentials a deny list let through (SSHPASS, connection URLs, proxy passwords, key files)', () => {
    const host = {
      PATH: '/bin',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      SSHPASS: 'hunter2',
      REDIS_URL: 'redis://:pw@cache:6379',
      MONGODB_URI: 'mongodb://admin:pw@db/app',
      POSTGRES_URL: 'postgres://app:pw@db/app',
      HTTPS_PROXY: 'http://me:pw@proxy:3128',
      https_proxy: 'http://me:pw@proxy:3128',
      GOOGLE_CLOUD_KEYFILE_JSON: '{"private_key":"..."}',
      SOMETHING_NOBODY_LISTED: 'could be anything',
    }
    expect(createCommandEnvironment(host)).toEqual({ PATH: '/bin', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', ...FIXED_ENV })
  })

  it('passes host variables the deployment names; a glob never reaches a secret-looking name or a URL with a password', () => {
    const host = {
      PATH: '/bin',
      CI: 'true',
      CI_COMMIT_SHA: 'abc',
      CI_JOB_TOKEN: 'ci-token',
      CI_REGISTRY_URL: 'https://registry',
      HTTP_PROXY: 'http://me:pw@proxy:3128',
      NO_PROXY: 'localhost',
      http_proxy: 'http://proxy:3128',
    }
    const env = createCommandEnvironment(host, { allowEnv: ['CI', 'CI_*', '*_PROXY', '*_proxy'] })
    expect(env).toEqual({ PATH: '/bin', CI: 'true', CI_COMMIT_SHA: 'abc', NO_PROXY: 'localhost', http_proxy: 'http://proxy:3128', ...FIXED_ENV })
    const named = createCommandEnvironment(host, { allowEnv: ['CI_JOB_TOKEN', 'HTTP_PROXY'] })
    expect(named['CI_JOB_TOKEN']).toBe('ci-token')
    expect(named['HTTP_PROXY']).toBe('http://me:pw@proxy:3128')
  })

  it('compares allow-listed names case-sensitively', () => {
    const env = createCommandEnvironment({ path: '/evil', Home: '/x', PATH: '/bin' }, { allowEnv: ['MY_VAR'] })
    expect(env).toEqual({ PATH: '/bin', ...FIXED_ENV })
  })

  it('lets secrets the deployment names through, but never hooks', () => {
    const env = createCommandEnvironment(parent, { allowEnv: ['CI_JOB_TOKEN', 'BASH_*', 'ENV'] })
    expect(env['CI_JOB_TOKEN']).toBe('ci-token')
    expect(env['GITHUB_TOKEN']).toBeUndefined()
    expect(env['BASH_ENV']).toBeUndefined()
    expect(env['BASH_FUNC_ls%%']).toBeUndefined()
    expect(env['ENV']).toBeUndefined()
  })

  it('applies extra deny patterns over allows and the defaults', () => {
    const env = createCommandEnvironment(parent, { allowEnv: ['CI_JOB_TOKEN', 'TOKENIZERS_PARALLELISM'], denyEnv: ['CI_*', 'HOME', 'TOKENIZERS_*'] })
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
    const env = createCommandEnvironment(source, { allowEnv: ['__proto__'] })
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
          if (!Object.hasOwn(FIXED_ENV, key)) expect(isSecretEnvName(key)).toBe(false)
        }
        for (const [key, value] of Object.entries(FIXED_ENV)) expect(env[key]).toBe(value)
      }),
    )
  })

  it('holds only allow-listed or deployment names plus the fixed variables, and never a start-up hook, for any host and deployment', () => {
    const corePool = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR', 'TERM', 'PWD']
    const credentialPool = ['SSHPASS', 'REDIS_URL', 'MONGODB_URI', 'POSTGRES_URL', 'HTTPS_PROXY', 'http_proxy', 'GOOGLE_CLOUD_KEYFILE_JSON', 'CI_JOB_TOKEN', 'SSH_AUTH_SOCK']
    const hookName = fc.oneof(
      fc.constantFrom(...SHELL_HOOK_ENV_NAMES),
      fc.string({ minLength: 0, maxLength: 8 }).map((suffix) => `${EXPORTED_FUNCTION_PREFIX}${suffix}`),
    )
    const hostName = fc.oneof(
      fc.constantFrom(...corePool, ...credentialPool),
      hookName,
      fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,10}$/),
      fc.string({ minLength: 1, maxLength: 10 }),
    )
    const hostValue = fc.oneof(fc.string(), fc.constantFrom('http://me:pw@proxy:3128', 'redis://:pw@cache'), fc.constant(undefined))
    const allowPattern = fc.oneof(
      fc.constantFrom(...credentialPool, 'CI_*', '*_PROXY', '*', 'BASH_*', 'ENV', 'BASH_ENV'),
      fc.stringMatching(/^[A-Za-z_*][A-Za-z0-9_*]{0,6}$/),
    )
    const deploymentEnv = fc.dictionary(fc.oneof(fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,8}$/), hookName), fc.string(), { maxKeys: 4 })
    fc.assert(
      fc.property(
        fc.dictionary(hostName, hostValue),
        fc.array(allowPattern, { maxLength: 5 }),
        deploymentEnv,
        (source, allowEnv, env) => {
          const result = createCommandEnvironment(source, { allowEnv, env })
          const admitted = (key: string): boolean =>
            [...DEFAULT_ALLOWED_ENV, ...allowEnv].some((pattern) => globMatches(pattern, key))
          for (const key of Object.keys(result)) {
            expect(isShellHookEnvName(key)).toBe(false)
            if (Object.hasOwn(FIXED_ENV, key) || Object.hasOwn(env, key)) continue
            // Anything else came from the host, unchanged, under a name an allow list admits (case-sensitively).
            expect(admitted(key), `${key} is neither allow-listed, set by the deployment nor fixed`).toBe(true)
            expect(result[key]).toBe(source[key])
            // A secret-looking host name is here only when the deployment named it exactly.
            if (isSecretEnvName(key)) expect(allowEnv).toContain(key)
          }
          for (const [key, value] of Object.entries(FIXED_ENV)) expect(result[key]).toBe(value)
        },
      ),
      { numRuns: 300 },
    )
  })
})
