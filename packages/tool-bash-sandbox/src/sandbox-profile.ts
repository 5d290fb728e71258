import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path'

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
  /**
   * Whether the executor could make the missing `path` (its deepest existing ancestor is writable). When it could
   * not, no command can create it there either, and it needs no cover. Default: true.
   */
  canCreate?(path: string): boolean
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
   * Mount points that do not exist on the host, inside a writable root: the executor makes them before the command
   * starts (shallowest first) and removes them once no running command uses them (deepest first).
   */
  readonly stubs: readonly SandboxStub[]
}

/** A mount point the executor makes on the host for one command: an empty directory, or an empty file. */
export interface SandboxStub {
  readonly path: string
  readonly kind: 'directory' | 'file'
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

  const shield = new Shield(input, fs)
  for (const entry of policy.readOnlyPaths) {
    if (isAbsolute(entry)) shield.readOnly(entry)
    else for (const root of policy.writableRoots) shield.readOnly(join(root, entry))
  }
  if (policy.protectGit) {
    const repositories = new Set(policy.writableRoots)
    if (policy.writableRoots.some((root) => isWithin(input.cwd, root))) repositories.add(input.cwd)
    for (const directory of repositories) shield.git(directory)
  }
  const hidden = input.isRoot ? [...policy.hiddenPaths, ...ROOT_ONLY_SECRETS] : policy.hiddenPaths
  for (const path of new Set(hidden)) shield.hide(path)
  args.push(...shield.args())
  // What the kernel shows of the host's keyrings: the names of the host user's session keys (keyctl itself is refused
  // by seccomp).
  for (const path of ['/proc/keys', '/proc/key-users']) args.push('--ro-bind-try', input.emptyFile, path)

  if (input.seccompFd !== undefined) args.push('--seccomp', String(input.seccompFd))
  if (input.statusFd !== undefined) args.push('--json-status-fd', String(input.statusFd))
  args.push('--chdir', input.cwd, '--', ...input.argv)
  return Object.freeze({ args: Object.freeze(args), stubs: Object.freeze(shield.stubs) })
}

/**
 * The protections inside the writable roots, built so that no sequence of commands can undo them:
 *
 * - every protected path is itself a mount point (a read-only bind, an empty read-only cover, a tmpfs), which the
 *   kernel refuses to rename, remove or replace (`EBUSY`);
 * - every directory between its writable root and it is bound onto itself, so it is a mount point too: the model
 *   cannot rename a parent and carry the protected thing away from the path the next command's profile looks at (nor
 *   put a look-alike in its place);
 * - a protected path that does not exist is covered all the same (an empty read-only directory, or file), so it
 *   cannot be created; the mount point, and any missing directory above it, is made on the host before the command
 *   starts (a {@link SandboxStub}) and removed after.
 *
 * Outside the writable roots everything is read-only already: a hidden path there is covered when it exists, and a
 * read-only path needs nothing. A protected path that is a symbolic link is protected where it points (the link
 * itself cannot carry a mount: see the reference page's limits).
 */
class Shield {
  /** Directories to bind onto themselves, by path (made first, shallowest first). */
  private readonly pinned = new Set<string>()
  /** The covering mounts, in the order they were asked for. */
  private readonly covers: string[] = []
  readonly stubs: SandboxStub[] = []
  private readonly stubbed = new Set<string>()

  constructor(
    private readonly input: SandboxProfileInput,
    private readonly fs: ProfileFileSystem,
  ) {}

  /** The bwrap operations: the pinned directories (shallowest first), then the covers. */
  args(): string[] {
    const pins = [...this.pinned].sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0))
    return [...pins.flatMap((path) => ['--bind', path, path]), ...this.covers]
  }

  /** Keeps `path` read-only (a file or a directory, or, when missing, an empty read-only directory). */
  readOnly(path: string): void {
    const target = this.locate(path)
    if (target === undefined) return
    if (target.kind === 'missing') this.cover(target, 'directory')
    else if (target.kind === 'directory' || target.kind === 'file' || target.kind === 'other') this.mount(target, ['--ro-bind', target.path, target.path])
  }

  /** Hides `path`: a directory shows empty (a tmpfs), a file empty; a missing one inside a writable root stays missing. */
  hide(path: string): void {
    const target = this.locate(path)
    if (target === undefined) return
    if (target.kind === 'directory') this.mount(target, ['--tmpfs', target.path])
    else if (target.kind === 'file' || target.kind === 'other') this.mount(target, ['--ro-bind', this.input.emptyFile, target.path])
    else if (target.kind === 'missing') this.cover(target, 'directory')
  }

  /**
   * `.git` of a writable directory: hooks and config (what runs code the next time git runs on the host) read-only,
   * and `.git` itself pinned, so it cannot be renamed and replaced by a planted repository. A missing `.git` is covered
   * by an empty read-only directory, so no repository with hooks can be planted there (`git init` inside fails); a
   * missing `hooks` or `config` likewise.
   */
  git(directory: string): void {
    const git = this.locate(join(directory, '.git'))
    if (git === undefined) return
    if (git.kind === 'missing') return this.cover(git, 'directory')
    if (git.kind !== 'directory') {
      // A gitdir pointer (a linked worktree or a submodule) or something odd: it cannot be rewritten to point elsewhere.
      if (git.kind === 'file' || git.kind === 'other') this.mount(git, ['--ro-bind', git.path, git.path])
      return
    }
    for (const [name, kind] of [
      ['hooks', 'directory'],
      ['config', 'file'],
    ] as const) {
      const entry = this.locate(join(git.path, name))
      if (entry === undefined) continue
      if (entry.kind === 'missing') this.cover(entry, kind)
      else if (entry.kind !== 'symlink') this.mount(entry, ['--ro-bind', entry.path, entry.path])
    }
  }

  /**
   * Where `path` really is: its canonical location (a symlink at the end followed once, missing trailing parts kept),
   * the innermost writable root that holds it (`undefined` outside every root), and what is there. `undefined` when
   * nothing there can be protected (a dangling link, a file where a directory would have to be).
   */
  private locate(path: string): Located | undefined {
    const { fs } = this
    const roots = this.input.policy.writableRoots
    let real: string | undefined = path
    let kind = fs.kind(path)
    if (innermostRoot(path, roots) === undefined && kind !== 'symlink') {
      // Outside every writable root nothing a command does can move, replace or create anything: the path is what it
      // was when the configuration made it canonical, and a missing one needs no cover.
      return kind === 'missing' ? undefined : { path, kind, root: undefined }
    }
    if (kind === 'missing') {
      // Through a symlinked parent, the path may exist after all where the link leads.
      real = canonicalMissing(path, fs)
      if (real === undefined) return undefined
      kind = fs.kind(real)
    }
    if (kind === 'symlink') {
      real = fs.realpath(real)
      if (real === undefined) return undefined
      kind = fs.kind(real)
    } else if (kind !== 'missing') {
      real = fs.realpath(real) ?? real
    }
    return { path: real, kind, root: innermostRoot(real, roots) }
  }

  /** A protection by `operation` at `target`, with its parents pinned when it lies in a writable root. */
  private mount(target: Located, operation: string[]): void {
    if (target.root !== undefined) this.pin(target.path, target.root)
    this.covers.push(...operation)
  }

  /** Covers a missing `target` with an empty read-only directory or file (only inside a writable root: elsewhere nothing can create it). */
  private cover(target: Located, kind: 'directory' | 'file'): void {
    if (target.root === undefined || this.fs.canCreate?.(target.path) === false) return
    this.pin(target.path, target.root)
    this.stub(target.path, kind)
    this.covers.push('--ro-bind', kind === 'directory' ? this.input.emptyDirectory : this.input.emptyFile, target.path)
  }

  /** Pins every directory strictly between `root` and `path` (making the missing ones as stubs). */
  private pin(path: string, root: string): void {
    const parts = relative(root, path).split(sep)
    let current = root
    for (const part of parts.slice(0, -1)) {
      current = join(current, part)
      if (this.fs.kind(current) === 'missing') this.stub(current, 'directory')
      this.pinned.add(current)
    }
  }

  private stub(path: string, kind: 'directory' | 'file'): void {
    if (this.stubbed.has(path)) return
    this.stubbed.add(path)
    this.stubs.push(Object.freeze({ path, kind }))
  }
}

/** A protected path as found: canonical, its writable root (if any), and what is there. */
interface Located {
  readonly path: string
  readonly kind: ProfilePathKind
  readonly root: string | undefined
}

function depth(path: string): number {
  return path.split(sep).length
}

/** The innermost writable root holding `path`, or `undefined`. */
function innermostRoot(path: string, roots: readonly string[]): string | undefined {
  let found: string | undefined
  for (const root of roots) if (isWithin(path, root) && (found === undefined || root.length > found.length)) found = root
  return found
}

/**
 * The canonical form of a missing `path`: its deepest existing ancestor resolved, the missing rest appended.
 * `undefined` when that ancestor is not a directory (nothing can be created below it).
 */
function canonicalMissing(path: string, fs: ProfileFileSystem): string | undefined {
  const rest: string[] = []
  let current = path
  for (;;) {
    const parent = dirname(current)
    rest.unshift(basename(current))
    if (parent === current) return path
    const kind = fs.kind(parent)
    if (kind === 'missing') {
      current = parent
      continue
    }
    const real = kind === 'directory' ? parent : kind === 'symlink' ? fs.realpath(parent) : undefined
    if (real === undefined || (kind === 'symlink' && fs.kind(real) !== 'directory')) return undefined
    return join(real, ...rest)
  }
}
