import { describe, expect, it } from 'vitest'
import { buildSandboxProfile, type ProfileFileSystem, type ProfilePathKind, type SandboxProfileInput } from './sandbox-profile.js'

/** A file system described by a table: path → kind (symlinks → their target). */
function tableFs(kinds: Record<string, ProfilePathKind>, links: Record<string, string> = {}): ProfileFileSystem {
  return {
    kind: (path) => kinds[path] ?? 'missing',
    realpath: (path) => links[path] ?? (kinds[path] === undefined || kinds[path] === 'symlink' ? undefined : path),
  }
}

function input(overrides: Partial<SandboxProfileInput> = {}): SandboxProfileInput {
  return {
    policy: {
      writableRoots: ['/work/repo'],
      hiddenPaths: ['/home/u/.ssh', '/home/u/.npmrc', '/home/u/.aws'],
      readOnlyPaths: [],
      protectGit: true,
      tmpSizeBytes: 1_048_576,
    },
    cwd: '/work/repo',
    isRoot: false,
    emptyFile: '/priv/empty',
    emptyDirectory: '/priv/empty.d',
    home: '/tmp/home',
    seccompFd: 3,
    statusFd: 4,
    argv: ['/usr/bin/bash', '--noprofile', '--norc', '-c', 'echo hi'],
    ...overrides,
  }
}

/** The `[flag, ...operands]` groups of an argv, for order-insensitive and order-sensitive checks. */
function pairs(args: readonly string[], flag: string): string[][] {
  const found: string[][] = []
  args.forEach((arg, index) => {
    if (arg === flag) found.push(args.slice(index + 1, index + (flag.includes('bind') ? 3 : 2)) as string[])
  })
  return found
}

const repoFs = tableFs({
  '/work/repo': 'directory',
  '/work/repo/.git': 'directory',
  '/work/repo/.git/hooks': 'directory',
  '/work/repo/.git/config': 'file',
  '/home/u/.ssh': 'directory',
  '/home/u/.npmrc': 'file',
  '/var/run': 'symlink',
})

describe('buildSandboxProfile', () => {
  it('drops every capability and forbids nested user namespaces, for root and non-root callers alike', () => {
    for (const isRoot of [true, false]) {
      const { args } = buildSandboxProfile(input({ isRoot }), repoFs)
      expect(args.slice(0, 6)).toEqual(['--unshare-all', '--unshare-user', '--disable-userns', '--die-with-parent', '--cap-drop', 'ALL'])
      expect(args).not.toContain('--new-session') // stays in the caller's process group, so stops reach it
      expect(args).not.toContain('--share-net')
    }
  })

  it('mounts the host read-only, then /proc/sys read-only over the fresh /proc (host sysctls out of reach)', () => {
    const { args } = buildSandboxProfile(input(), repoFs)
    const proc = args.indexOf('--proc')
    const sys = args.findIndex((arg, index) => arg === '--ro-bind' && args[index + 1] === '/proc/sys')
    expect(pairs(args, '--ro-bind')[0]).toEqual(['/', '/'])
    expect(proc).toBeGreaterThan(0)
    expect(sys).toBeGreaterThan(proc)
    expect(pairs(args, '--ro-bind-try').map(([path]) => path)).toContain('/proc/sysrq-trigger')
  })

  it('gives a private, size-bounded /tmp, a scratch HOME in it, and hides /run (host sockets)', () => {
    const { args } = buildSandboxProfile(input(), repoFs)
    const tmp = args.indexOf('/tmp')
    expect(args.slice(tmp - 5, tmp + 1)).toEqual(['--size', '1048576', '--perms', '1777', '--tmpfs', '/tmp'])
    expect(args.slice(tmp + 1, tmp + 5)).toEqual(['--perms', '0700', '--dir', '/tmp/home'])
    expect(pairs(args, '--tmpfs').map(([path]) => path)).toEqual(expect.arrayContaining(['/run', '/tmp']))
    // /var/run is a symlink to /run here: covering /run covers it.
    expect(pairs(args, '--tmpfs').map(([path]) => path)).not.toContain('/var/run')
    const separate = buildSandboxProfile(input(), tableFs({ '/var/run': 'directory' })).args
    expect(pairs(separate, '--tmpfs').map(([path]) => path)).toContain('/var/run')
  })

  it('binds each writable root read-write after the read-only host, and hides secrets after the binds', () => {
    const extra = input({ policy: { ...input().policy, writableRoots: ['/work/repo', '/data/out'] } })
    const { args } = buildSandboxProfile(extra, repoFs)
    expect(pairs(args, '--bind')).toEqual([
      ['/work/repo', '/work/repo'],
      ['/data/out', '/data/out'],
      ['/work/repo/.git', '/work/repo/.git'], // pinned: the parent of the protected hooks and config
    ])
    const lastBind = args.lastIndexOf('--bind')
    const ssh = args.indexOf('/home/u/.ssh')
    expect(args[ssh - 1]).toBe('--tmpfs') // a directory shows empty
    expect(ssh).toBeGreaterThan(lastBind)
    const npmrc = args.indexOf('/home/u/.npmrc')
    expect(args.slice(npmrc - 2, npmrc + 1)).toEqual(['--ro-bind', '/priv/empty', '/home/u/.npmrc']) // a file shows empty
    expect(args).not.toContain('/home/u/.aws') // missing outside the writable roots: nothing can create it there
  })

  it('hides /etc/shadow and /etc/gshadow from root callers only', () => {
    const fs = tableFs({ '/etc/shadow': 'file', '/etc/gshadow': 'file' })
    expect(buildSandboxProfile(input({ isRoot: true }), fs).args).toEqual(expect.arrayContaining(['/priv/empty', '/etc/shadow']))
    expect(buildSandboxProfile(input({ isRoot: false }), fs).args).not.toContain('/etc/shadow')
  })

  it('keeps .git/hooks and .git/config of an existing repository read-only', () => {
    const { args, stubs } = buildSandboxProfile(input(), repoFs)
    expect(pairs(args, '--ro-bind')).toEqual(
      expect.arrayContaining([
        ['/work/repo/.git/hooks', '/work/repo/.git/hooks'],
        ['/work/repo/.git/config', '/work/repo/.git/config'],
      ]),
    )
    expect(stubs).toEqual([])
  })

  it('covers a missing .git (no repository with hooks can be planted) and reports the mount point as a stub', () => {
    const { args, stubs } = buildSandboxProfile(input(), tableFs({ '/work/repo': 'directory' }))
    expect(pairs(args, '--ro-bind')).toContainEqual(['/priv/empty.d', '/work/repo/.git'])
    expect(stubs).toEqual([{ path: '/work/repo/.git', kind: 'directory' }])
  })

  it('covers a missing hooks directory or config of an existing .git', () => {
    const { args, stubs } = buildSandboxProfile(input(), tableFs({ '/work/repo/.git': 'directory' }))
    expect(pairs(args, '--ro-bind')).toEqual(
      expect.arrayContaining([
        ['/priv/empty.d', '/work/repo/.git/hooks'],
        ['/priv/empty', '/work/repo/.git/config'],
      ]),
    )
    expect(stubs).toEqual([
      { path: '/work/repo/.git/hooks', kind: 'directory' },
      { path: '/work/repo/.git/config', kind: 'file' },
    ])
    expect(pairs(args, '--bind')).toContainEqual(['/work/repo/.git', '/work/repo/.git'])
  })

  it('keeps a gitdir pointer file (a linked worktree) from being rewritten', () => {
    const { args } = buildSandboxProfile(input(), tableFs({ '/work/repo/.git': 'file' }))
    expect(pairs(args, '--ro-bind')).toContainEqual(['/work/repo/.git', '/work/repo/.git'])
  })

  it('follows a .git symlink into a writable root and protects the real directory, never the link', () => {
    const fs = tableFs(
      { '/work/repo/.git': 'symlink', '/work/repo/real.git': 'directory', '/work/repo/real.git/hooks': 'directory', '/work/repo/real.git/config': 'file' },
      { '/work/repo/.git': '/work/repo/real.git' },
    )
    const { args } = buildSandboxProfile(input(), fs)
    expect(pairs(args, '--ro-bind')).toContainEqual(['/work/repo/real.git/hooks', '/work/repo/real.git/hooks'])
    expect(pairs(args, '--bind')).toContainEqual(['/work/repo/real.git', '/work/repo/real.git'])
    expect(pairs(args, '--bind')).not.toContainEqual(['/work/repo/.git', '/work/repo/.git'])
    // A dangling link: a mount would follow it, and there is nothing to protect behind it (a documented limit).
    const dangling = buildSandboxProfile(input(), tableFs({ '/work/repo/.git': 'symlink' }))
    expect(dangling.args.join(' ')).not.toContain('/work/repo/.git')
  })

  it('protects nothing when git protection is off', () => {
    const off = input({ policy: { ...input().policy, protectGit: false } })
    const { args, stubs } = buildSandboxProfile(off, repoFs)
    expect(args.join(' ')).not.toContain('.git')
    expect(stubs).toEqual([])
  })

  it('keeps configured read-only paths in every writable root, resolving symlinks before mounting', () => {
    const fs = tableFs(
      { '/work/repo/Makefile': 'file', '/work/repo/link': 'symlink', '/etc/passwd': 'file' },
      { '/work/repo/link': '/etc/passwd' },
    )
    const ro = input({ policy: { ...input().policy, readOnlyPaths: ['Makefile', 'link', 'absent'], protectGit: false } })
    const { args } = buildSandboxProfile(ro, fs)
    expect(pairs(args, '--ro-bind')).toContainEqual(['/work/repo/Makefile', '/work/repo/Makefile'])
    // The link leads outside the writable roots (read-only already): no mount over a path a link names.
    expect(args).not.toContain('/work/repo/link')
    // Missing in a writable root: covered, so it cannot be created.
    expect(pairs(args, '--ro-bind')).toContainEqual(['/priv/empty.d', '/work/repo/absent'])
  })

  it('pins every directory between a writable root and a protected path, shallowest first, before the covers', () => {
    const fs = tableFs({
      '/work/repo': 'directory',
      '/work/repo/a': 'directory',
      '/work/repo/a/b': 'directory',
      '/work/repo/a/b/secret.txt': 'file',
      '/work/repo/a/b/keep': 'directory',
    })
    const policy = { ...input().policy, hiddenPaths: ['/work/repo/a/b/secret.txt'], readOnlyPaths: ['a/b/keep'], protectGit: false }
    const { args, stubs } = buildSandboxProfile(input({ policy }), fs)
    expect(pairs(args, '--bind')).toEqual([
      ['/work/repo', '/work/repo'],
      ['/work/repo/a', '/work/repo/a'],
      ['/work/repo/a/b', '/work/repo/a/b'],
    ])
    const lastPin = args.lastIndexOf('--bind')
    expect(args.indexOf('/work/repo/a/b/secret.txt')).toBeGreaterThan(lastPin)
    expect(args.indexOf('/work/repo/a/b/keep')).toBeGreaterThan(lastPin)
    expect(stubs).toEqual([])
  })

  it('covers a missing protected path in a writable root, making it and its missing parents as stubs, shallowest first', () => {
    const policy = { ...input().policy, hiddenPaths: ['/work/repo/x/y/.env'], protectGit: false }
    const { args, stubs } = buildSandboxProfile(input({ policy }), tableFs({ '/work/repo': 'directory' }))
    expect(stubs).toEqual([
      { path: '/work/repo/x', kind: 'directory' },
      { path: '/work/repo/x/y', kind: 'directory' },
      { path: '/work/repo/x/y/.env', kind: 'directory' },
    ])
    expect(pairs(args, '--bind')).toEqual([
      ['/work/repo', '/work/repo'],
      ['/work/repo/x', '/work/repo/x'],
      ['/work/repo/x/y', '/work/repo/x/y'],
    ])
    expect(pairs(args, '--ro-bind')).toContainEqual(['/priv/empty.d', '/work/repo/x/y/.env'])
    // Where nothing could create it (its parent is not writable), no cover is needed and none is made.
    const locked = buildSandboxProfile(input({ policy }), { ...tableFs({ '/work/repo': 'directory' }), canCreate: () => false })
    expect(locked.stubs).toEqual([])
    expect(locked.args).not.toContain('/work/repo/x/y/.env')
  })

  it('resolves a protected path through a symlinked parent to where it really is', () => {
    const fs = tableFs({ '/work/repo/cfg': 'symlink', '/work/repo/real-cfg': 'directory', '/work/repo/real-cfg/token': 'file' }, { '/work/repo/cfg': '/work/repo/real-cfg', '/work/repo/cfg/token': '/work/repo/real-cfg/token' })
    const policy = { ...input().policy, hiddenPaths: ['/work/repo/cfg/token', '/work/repo/cfg/missing'], protectGit: false }
    const { args, stubs } = buildSandboxProfile(input({ policy }), fs)
    expect(pairs(args, '--ro-bind')).toContainEqual(['/priv/empty', '/work/repo/real-cfg/token'])
    expect(pairs(args, '--bind')).toContainEqual(['/work/repo/real-cfg', '/work/repo/real-cfg'])
    expect(stubs).toEqual([{ path: '/work/repo/real-cfg/missing', kind: 'directory' }])
  })

  it("covers what the kernel shows of the host's keyrings", () => {
    const { args } = buildSandboxProfile(input(), repoFs)
    expect(pairs(args, '--ro-bind-try')).toEqual(expect.arrayContaining([['/priv/empty', '/proc/keys'], ['/priv/empty', '/proc/key-users']]))
  })

  it('ends with seccomp, the status fd, the working directory and the command, after a --', () => {
    const { args } = buildSandboxProfile(input({ cwd: '/work/repo/sub' }), repoFs)
    const end = args.indexOf('--')
    expect(args.slice(end - 6)).toEqual([
      '--seccomp',
      '3',
      '--json-status-fd',
      '4',
      '--chdir',
      '/work/repo/sub',
      '--',
      '/usr/bin/bash',
      '--noprofile',
      '--norc',
      '-c',
      'echo hi',
    ])
  })

  it('is pure: the same input and file system give the same argv, frozen', () => {
    const first = buildSandboxProfile(input(), repoFs)
    expect(buildSandboxProfile(input(), repoFs)).toEqual(first)
    expect(Object.isFrozen(first.args)).toBe(true)
  })
})
