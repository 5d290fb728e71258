import { ownValue } from './config-values.js'

/**
 * The core allow list: the only host variables a command gets by default (the deployment adds more with
 * `allowEnv`). Compared case-sensitively, as Linux compares variable names; `*` matches any run of characters.
 *
 * - `PATH`, `HOME`, `USER`, `LOGNAME`, `SHELL`: who and where the user is, and where programs are;
 * - `LANG`, `LANGUAGE`, `LC_*`, `TZ`: locale and time zone, so output is decoded and dated as the user expects;
 * - `TMPDIR`: where temporary files go.
 *
 * `TERM` is not on it because {@link FIXED_ENV} sets it to `dumb` for every command. `PWD` and `OLDPWD` are not on
 * it because bash sets them from the directory the command runs in (the host's `PWD` names the host's directory).
 * `SSH_AUTH_SOCK` is not on it either: it hands out the user's SSH agent (add it to `allowEnv` for `git` over SSH).
 */
export const DEFAULT_ALLOWED_ENV: readonly string[] = Object.freeze([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'LC_*',
  'TZ',
  'TMPDIR',
])

/**
 * Names (glob patterns, `*` matches any run of characters, compared case-insensitively) that look like secrets.
 * Since the environment is an allow list this is a second line only: a host variable whose name matches passes
 * when `allowEnv` names it exactly, never through a `*` glob (`allowEnv: ['CI_*']` passes `CI_COMMIT_SHA`, not
 * `CI_JOB_TOKEN`). The list, exactly:
 *
 * - anything containing `TOKEN`, `SECRET`, `PASSWORD`, `PASSWD`, `PASSPHRASE`, `CREDENTIAL`, `APIKEY`,
 *   `API_KEY`, `PRIVATE_KEY`, `AUTHORIZATION`, `COOKIE`, `WEBHOOK`, `JWT`, `DATABASE_URL`, `CONNECTION_STRING`,
 *   `SSHPASS`, `KEYFILE` or `_URI`, or ending in `_URL` (connection URLs such as `REDIS_URL`, `POSTGRES_URL`,
 *   `MONGODB_URI` carry passwords);
 * - names ending in `_KEY`, `_KEYS`, `_AUTH`, `_DSN`, `_PASS`, `_PWD` or `_PAT`, and names containing `_KEY_`;
 * - names starting with `AWS_`, `AZURE_`, `GCP_`, `GOOGLE_`, `OP_SESSION_` (1Password CLI sessions);
 * - `DOCKER_AUTH_CONFIG`.
 */
export const SECRET_ENV_PATTERNS: readonly string[] = Object.freeze([
  '*TOKEN*',
  '*SECRET*',
  '*PASSWORD*',
  '*PASSWD*',
  '*PASSPHRASE*',
  '*CREDENTIAL*',
  '*APIKEY*',
  '*API_KEY*',
  '*PRIVATE_KEY*',
  '*AUTHORIZATION*',
  '*COOKIE*',
  '*WEBHOOK*',
  '*JWT*',
  '*DATABASE_URL*',
  '*CONNECTION_STRING*',
  '*SSHPASS*',
  '*KEYFILE*',
  '*_URI*',
  '*_URL',
  '*_KEY',
  '*_KEYS',
  '*_KEY_*',
  '*_AUTH',
  '*_DSN',
  '*_PASS',
  '*_PWD',
  '*_PAT',
  'AWS_*',
  'AZURE_*',
  'GCP_*',
  'GOOGLE_*',
  'OP_SESSION_*',
  'DOCKER_AUTH_CONFIG',
])

/**
 * Variables that change how bash itself starts or parses, removed unconditionally (no allow list brings them
 * back): `BASH_ENV` and `ENV` (start-up files a non-interactive shell would source), `SHELLOPTS` and `BASHOPTS`
 * (inherited shell options such as `xtrace`), `PROMPT_COMMAND`, `PS4`, `BASH_XTRACEFD`, `CDPATH` and
 * `GLOBIGNORE`; exported functions (`BASH_FUNC_*`) are removed too. `FORCE_COLOR` and `CLICOLOR_FORCE` are removed
 * because they override `NO_COLOR`.
 */
export const SHELL_HOOK_ENV_NAMES: readonly string[] = Object.freeze([
  'BASH_ENV',
  'ENV',
  'SHELLOPTS',
  'BASHOPTS',
  'PROMPT_COMMAND',
  'PS4',
  'BASH_XTRACEFD',
  'CDPATH',
  'GLOBIGNORE',
  'FORCE_COLOR',
  'CLICOLOR_FORCE',
])

/** The prefix of exported bash functions (`BASH_FUNC_name%%`), removed unconditionally. */
export const EXPORTED_FUNCTION_PREFIX = 'BASH_FUNC_'

/** Set for every command, last (nothing overrides them): no colours, a dumb terminal, no pagers. */
export const FIXED_ENV: Readonly<Record<string, string>> = Object.freeze({
  NO_COLOR: '1',
  TERM: 'dumb',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
})

/** Options of {@link createCommandEnvironment}. */
export interface CommandEnvironmentOptions {
  /**
   * Host variable names or `*` globs that pass besides {@link DEFAULT_ALLOWED_ENV} (compared case-sensitively).
   * A name given exactly always passes; a name reached only through a glob does not when it looks like a secret
   * ({@link SECRET_ENV_PATTERNS}) or its value is a URL with a password (`scheme://user:password@…`).
   */
  allowEnv?: readonly string[] | undefined
  /** Names or globs (compared case-insensitively) that never pass from the host, whatever the allow lists say. */
  denyEnv?: readonly string[] | undefined
  /** Variables the deployment sets for every command, after filtering (shell hooks and {@link FIXED_ENV} names are ignored). */
  env?: Readonly<Record<string, string>> | undefined
}

function patternSource(patterns: readonly string[]): string {
  return patterns
    .map((pattern) => pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*'))
    .join('|')
}

/** Compiles glob patterns (`*` = any run of characters) into one case-insensitive matcher. */
export function compileEnvPatterns(patterns: readonly string[]): (name: string) => boolean {
  if (patterns.length === 0) return () => false
  const regex = new RegExp(`^(?:${patternSource(patterns)})$`, 'i')
  return (name) => regex.test(name)
}

/** How an allow list admits a name: exactly (`'exact'`), only through a `*` glob (`'glob'`), or not at all. */
type AllowMatch = 'exact' | 'glob' | undefined

function compileAllowList(patterns: readonly string[]): (name: string) => AllowMatch {
  const exact = new Set(patterns.filter((pattern) => !pattern.includes('*')))
  const globs = patterns.filter((pattern) => pattern.includes('*'))
  const regex = globs.length > 0 ? new RegExp(`^(?:${patternSource(globs)})$`) : undefined
  return (name) => (exact.has(name) ? 'exact' : regex?.test(name) === true ? 'glob' : undefined)
}

/** `scheme://user:password@host…`: a URL that carries a password in its user info. */
const urlWithPassword = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#@\s]*:[^/?#@\s]*@/

const isDefaultSecret = compileEnvPatterns(SECRET_ENV_PATTERNS)
const isDefaultAllowed = compileAllowList(DEFAULT_ALLOWED_ENV)

/** True when `name` matches {@link SECRET_ENV_PATTERNS} (names that pass only when `allowEnv` names them exactly). */
export function isSecretEnvName(name: string): boolean {
  return isDefaultSecret(name)
}

const hookNames: ReadonlySet<string> = new Set(SHELL_HOOK_ENV_NAMES)

/** True when `name` is a shell start-up hook or an exported function, which never reach a command. */
export function isShellHookEnvName(name: string): boolean {
  return hookNames.has(name) || name.startsWith(EXPORTED_FUNCTION_PREFIX)
}

/**
 * The environment a command gets, built from an allow list, never from the whole of `source` (the parent's):
 *
 * 1. a `source` variable passes only when {@link DEFAULT_ALLOWED_ENV} or `allowEnv` admits it, `denyEnv` does not
 *    match it, and it is not a shell start-up hook or exported function (no allow list brings those back); a name
 *    admitted only by a `*` glob must also not look like a secret nor hold a URL with a password;
 * 2. the deployment's `env` is added (except shell hooks);
 * 3. {@link FIXED_ENV} is set last.
 *
 * Variables whose value is `undefined` are dropped. The result has a null prototype.
 */
export function createCommandEnvironment(
  source: Readonly<Record<string, string | undefined>>,
  options: CommandEnvironmentOptions = {},
): Record<string, string> {
  // Own properties only: a polluted Object.prototype adds no allow list, no deny list and no variables.
  const allowEnv = ownValue(options, 'allowEnv') as readonly string[] | undefined
  const denyEnv = ownValue(options, 'denyEnv') as readonly string[] | undefined
  const extraEnv = ownValue(options, 'env') as Readonly<Record<string, string>> | undefined
  const isExtraAllowed = compileAllowList(allowEnv ?? [])
  const isDenied = compileEnvPatterns(denyEnv ?? [])
  // A null-prototype record: a variable named `__proto__` stays a variable.
  const result = Object.create(null) as Record<string, string>
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || isShellHookEnvName(name) || isDenied(name)) continue
    const extra = isExtraAllowed(name)
    const match = extra === 'exact' ? extra : (isDefaultAllowed(name) ?? extra)
    if (match === undefined) continue
    if (match === 'glob' && (isDefaultSecret(name) || urlWithPassword.test(value))) continue
    result[name] = value
  }
  for (const [name, value] of Object.entries(extraEnv ?? {})) {
    if (!isShellHookEnvName(name)) result[name] = value
  }
  Object.assign(result, FIXED_ENV)
  return result
}
