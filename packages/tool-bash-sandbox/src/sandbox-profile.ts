import { isAbsolute, join, relative } from 'node:path'

/** What one path is, as `lstat` sees it (a symlink is not followed). */
export type ProfilePathKind = 'directory' | 'file' | 'symlink' | 'other' | 'missing'

/**
 * The file-system facts the profile builder needs, injected so that the builder itself stays pure (the executor
 * passes the real file system; tests pass a table).
 */
export interface ProfileFileSystem {
  /** What `path` is, without following a final symlink. */
  kind(path: string): ProfilePathKind
  /** `path` with every symlink resolved, or `undefined` when it does not exist. */
  realpath(path: string): string | undefined
}

/** The resolved policy the profile enforces: every path absolute and canonical. */
export interface SandboxPolicy {
  /** Directories the command may write (the executor's `cwd` first), canonical. */
  readonly writableRoots: readonly string[]
  /** Paths hidden from the command (a directory shows empty, a file empty), canonical; missing ones are skipped. */
  readonly hiddenPaths: readonly string[]
  /**
   * Paths kept read-only although they lie in a writable root: absolute, or relative to each writable root
   * (default: the git metadata that runs code later, `.git/hooks` and `.git/config`).
   */
  readonly readOnlyPaths: readonly string[]
  /** Protect git metadata: `.git/hooks` and `.git/config` read-only, and no new `.git` in a writable root. */
  readonly protectGit: boolean
  /** The size of the private `/tmp`, in bytes. */
  readonly tmpSizeBytes: number
}

/** Everything one command's profile is built from. */
export interface SandboxProfileInput {
  readonly policy: SandboxPolicy
  /** The command's working directory (canonical). */
  readonly cwd: string
  /** True when the caller is root (uid 0): the secrets only root can read (`/etc/shadow`, …) are hidden too. */
  readonly isRoot: boolean
  /** An empty, read-only file of the executor's (mounted over hidden or protected files). */
  readonly emptyFile: string
  /** An empty, read-only directory of the executor's (mounted over missing protected directories). */
  readonly emptyDirectory: string
  /** The scratch `HOME` inside the sandbox (created in the private `/tmp`). */
  readonly home: string
  /** The fd the seccomp program is read from, if any. */
  readonly seccompFd?: number | undefined
  /** The fd bubblewrap writes its JSON status to, if any. */
  readonly statusFd?: number | undefined
  /** What runs inside: the program and its arguments. */
  readonly argv: readonly string[]
}

/** A built profile: bubblewrap's arguments, and the mount points it will create on the host (to remove after). */
export interface SandboxProfile {
  /** The arguments of `bwrap`, ending with `--` and the argv. */
  readonly args: readonly string[]
  /**
   * Paths that do not exist on the host and that bubblewrap creates there as mount points (inside a writable root),
   * deepest last. The executor removes them when the command has ended.
   */
  readonly stubs: readonly string[]
}

/** Secrets that only root can read, hidden from root callers. */
export const ROOT_ONLY_SECRETS: readonly string[] = Object.freeze(['/etc/shadow', '/etc/gshadow', '/etc/sudoers'])

/** True when `path` is `root` or lies below it. */
export function isWithin(path: string, root: string): boolean {
  const rest = relative(root, path)
  return rest === '' || (!rest.startsWith('..') && !isAbsolute(rest))
}

/**
 * Builds the bubblewrap arguments of one command. The order matters (later mounts cover earlier ones):
 *
 * 1. namespaces: all of them (no network, own pids, ipc, uts), a user namespace that cannot make more
 *    (`--disable-userns`), every capability dropped (root callers keep them otherwise), the sandbox dies with its
 *    parent, and it stays in the caller's process group (no `--new-session`) so stops reach it;
 * 2. the host root read-only, a fresh `/dev` and `/proc`, `/proc/sys` (and the other writable `/proc` files)
 *    re-bound read-only, `/run` (host sockets) and `/tmp` private tmpfs, a scratch `HOME`;
 * 3. the writable roots bound read-write;
 * 4. the read-only paths in them, git metadata protection;
 * 5. hidden paths last, so no writable bind uncovers them;
 * 6. seccomp, the status fd, the working directory, and the command.
 */
export function buildSandboxProfile(input: SandboxProfileInput, fs: ProfileFileSystem): SandboxProfile {
  const { policy } = input
  const args: string[] = [
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--cap-drop',
    'ALL',
    '--hostname',
    'sandbox',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--ro-bind',
    '/proc/sys',
    '/proc/sys',
  ]
  for (const path of ['/proc/sysrq-trigger', '/proc/irq', '/proc/bus', '/proc/fs']) args.push('--ro-bind-try', path, path)
  args.push('--tmpfs', '/run')
  if (fs.kind('/var/run') === 'directory') args.push('--tmpfs', '/var/run')
  args.push('--size', String(policy.tmpSizeBytes), '--perms', '1777', '--tmpfs', '/tmp')
  args.push('--perms', '0700', '--dir', input.home)

  for (const root of policy.writableRoots) args.push('--bind', root, root)

  const stubs: string[] = []
  const readOnly = (path: string): void => {
    const kind = fs.kind(path)
    if (kind === 'missing') return
    const real = kind === 'symlink' ? fs.realpath(path) : path
    // A symlink pointing outside the writable roots leads somewhere read-only already.
    if (real !== undefined && policy.writableRoots.some((root) => isWithin(real, root))) args.push('--ro-bind', real, real)
  }
  for (const entry of policy.readOnlyPaths) {
    if (isAbsolute(entry)) readOnly(entry)
    else for (const root of policy.writableRoots) readOnly(join(root, entry))
  }
  if (policy.protectGit) {
    const repositories = new Set(policy.writableRoots)
    if (policy.writableRoots.some((root) => isWithin(input.cwd, root))) repositories.add(input.cwd)
    for (const directory of repositories) protectGit(directory, input, fs, args, stubs)
  }

  const hidden = input.isRoot ? [...policy.hiddenPaths, ...ROOT_ONLY_SECRETS] : policy.hiddenPaths
  for (const path of new Set(hidden)) {
    const kind = fs.kind(path)
    if (kind === 'directory') args.push('--tmpfs', path)
    else if (kind === 'file' || kind === 'other') args.push('--ro-bind', input.emptyFile, path)
  }

  if (input.seccompFd !== undefined) args.push('--seccomp', String(input.seccompFd))
  if (input.statusFd !== undefined) args.push('--json-status-fd', String(input.statusFd))
  args.push('--chdir', input.cwd, '--', ...input.argv)
  return Object.freeze({ args: Object.freeze(args), stubs: Object.freeze(stubs) })
}

/**
 * `.git` of a writable directory: hooks and config (what runs code the next time git runs on the host) read-only.
 * A missing `.git` is covered by an empty read-only directory, so no repository with hooks can be planted there
 * (`git init` inside fails); a missing `hooks` or `config` likewise. Those covers are stubs on the host.
 */
function protectGit(directory: string, input: SandboxProfileInput, fs: ProfileFileSystem, args: string[], stubs: string[]): void {
  let git = join(directory, '.git')
  let kind = fs.kind(git)
  if (kind === 'symlink') {
    const real = fs.realpath(git)
    if (real === undefined) {
      // A dangling link: git would create its target. Keep the link itself from being replaced or followed.
      args.push('--ro-bind', input.emptyFile, git)
      return
    }
    if (!input.policy.writableRoots.some((root) => isWithin(real, root))) return
    git = real
    kind = fs.kind(real)
  }
  if (kind === 'missing') {
    args.push('--ro-bind', input.emptyDirectory, git)
    stubs.push(git)
    return
  }
  if (kind !== 'directory') {
    // A gitdir pointer (a linked worktree or a submodule) or something odd: it cannot be rewritten to point elsewhere.
    args.push('--ro-bind', git, git)
    return
  }
  for (const [name, cover] of [
    ['hooks', input.emptyDirectory],
    ['config', input.emptyFile],
  ] as const) {
    const path = join(git, name)
    const existing = fs.kind(path)
    if (existing === 'missing') {
      args.push('--ro-bind', cover, path)
      stubs.push(path)
    } else {
      args.push('--ro-bind', path, path)
    }
  }
}
