/**
 * Names (glob patterns, `*` matches any run of characters, compared case-insensitively) of environment variables
 * that are treated as secrets and never reach a command, unless allow-listed. The list, exactly:
 *
 * - anything containing `TOKEN`, `SECRET`, `PASSWORD`, `PASSWD`, `PASSPHRASE`, `CREDENTIAL`, `APIKEY`,
 *   `API_KEY`, `PRIVATE_KEY`, `AUTHORIZATION`, `COOKIE`, `WEBHOOK`, `JWT`, `DATABASE_URL` or `CONNECTION_STRING`;
 * - names ending in `_KEY`, `_KEYS`, `_AUTH`, `_DSN`, `_PASS`, `_PWD` or `_PAT`, and names containing `_KEY_`;
 * - names starting with `AWS_`, `AZURE_`, `GCP_`, `OP_SESSION_` (1Password CLI sessions);
 * - `DOCKER_AUTH_CONFIG`.
 *
 * `SSH_AUTH_SOCK` is deliberately not on the list: it names a socket, not a secret, and `git` over SSH needs it.
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
  'OP_SESSION_*',
  'DOCKER_AUTH_CONFIG',
])

/**
 * Names that match {@link SECRET_ENV_PATTERNS} but are known to be harmless, so they pass unless the deployment
 * denies them: `TOKENIZERS_PARALLELISM` (Hugging Face tokenizers).
 */
export const DEFAULT_ALLOWED_ENV: readonly string[] = Object.freeze(['TOKENIZERS_PARALLELISM'])

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
  /** Extra names or glob patterns that pass even though they look like secrets (added to {@link DEFAULT_ALLOWED_ENV}). */
  allowEnv?: readonly string[] | undefined
  /** Extra names or glob patterns treated as secrets (added to {@link SECRET_ENV_PATTERNS}); they win over allows. */
  denyEnv?: readonly string[] | undefined
  /** Variables the deployment sets for every command, after scrubbing (they may not name shell hooks or fixed variables). */
  env?: Readonly<Record<string, string>> | undefined
}

/** Compiles glob patterns (`*` = any run of characters) into one case-insensitive matcher. */
export function compileEnvPatterns(patterns: readonly string[]): (name: string) => boolean {
  if (patterns.length === 0) return () => false
  const source = patterns
    .map((pattern) => pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*'))
    .join('|')
  const regex = new RegExp(`^(?:${source})$`, 'i')
  return (name) => regex.test(name)
}

const isDefaultSecret = compileEnvPatterns(SECRET_ENV_PATTERNS)

/** True when `name` matches {@link SECRET_ENV_PATTERNS} (the built-in deny list, before any allow list). */
export function isSecretEnvName(name: string): boolean {
  return isDefaultSecret(name)
}

const hookNames: ReadonlySet<string> = new Set(SHELL_HOOK_ENV_NAMES)

/** True when `name` is a shell start-up hook or an exported function, which never reach a command. */
export function isShellHookEnvName(name: string): boolean {
  return hookNames.has(name) || name.startsWith(EXPORTED_FUNCTION_PREFIX)
}

/**
 * The environment a command gets: `source` (the parent's) without secrets (names matching the deny list and not
 * the allow list), plus the deployment's `env`, without shell start-up hooks and exported functions, with
 * {@link FIXED_ENV} set last. Variables whose value is `undefined` are dropped.
 */
export function createCommandEnvironment(
  source: Readonly<Record<string, string | undefined>>,
  options: CommandEnvironmentOptions = {},
): Record<string, string> {
  const isAllowed = compileEnvPatterns([...DEFAULT_ALLOWED_ENV, ...(options.allowEnv ?? [])])
  const isExtraDenied = compileEnvPatterns(options.denyEnv ?? [])
  // A null-prototype record: a variable named `__proto__` stays a variable.
  const result = Object.create(null) as Record<string, string>
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || isShellHookEnvName(name)) continue
    if (isExtraDenied(name)) continue
    if (isDefaultSecret(name) && !isAllowed(name)) continue
    result[name] = value
  }
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (!isShellHookEnvName(name)) result[name] = value
  }
  Object.assign(result, FIXED_ENV)
  return result
}
