// resourceLimits: 'cgroup' means "cgroups or no sandbox": where the command cgroups cannot be made, loading fails with
// SandboxUnavailableError (cgroups-unavailable) naming the cause and the fix, and leaves nothing behind; 'auto' in the
// same place falls back to rlimits and loads.
import { spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { resolveSandboxedBashConfig, type SandboxedBashConfig } from './sandbox-config.js'
import { SandboxRuntime } from './sandbox-runtime.js'
import { SandboxUnavailableError } from './sandbox-unavailable-error.js'
import { NOBODY, describeInSandbox, loadSandboxed } from './test-support.js'

const isRoot = process.getuid?.() === 0

describeInSandbox(() => {
  let scratch: string
  let readOnlyHierarchy: string
  let workdir: string
  let tempDir: string
  const limits: SandboxedBashConfig = { resourceLimits: 'cgroup', memoryBytes: 268_435_456, maxProcesses: 64 }

  beforeAll(() => {
    scratch = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-sbx-cgroup-required-')))
    chmodSync(scratch, 0o755)
    workdir = join(scratch, 'work')
    tempDir = join(scratch, 'priv')
    readOnlyHierarchy = join(scratch, 'cgroup')
    for (const directory of [workdir, tempDir, readOnlyHierarchy]) {
      mkdirSync(directory)
      chmodSync(directory, 0o777)
    }
    if (isRoot) {
      // A "cgroup hierarchy" root cannot write either: a read-only tmpfs (mkdir there is EROFS, even for uid 0).
      const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', readOnlyHierarchy])
      if (mounted.status !== 0) throw new Error(`could not mount the read-only hierarchy: ${mounted.stderr}`)
    }
  })

  afterAll(() => {
    if (isRoot) spawnSync('umount', [readOnlyHierarchy])
    rmSync(scratch, { recursive: true, force: true })
  })

  /** A layout whose memory and pids hierarchy is the read-only directory, this process at its root. */
  const unwritable = (): { mountinfo: string; cgroup: string } => ({
    mountinfo: `40 30 0:99 / ${readOnlyHierarchy} rw,relatime - cgroup cgroup rw,memory,pids`,
    cgroup: '5:memory:/\n6:pids:/\n0::/',
  })

  it("as root: a cgroup hierarchy that cannot be written fails the preflight of resourceLimits: 'cgroup' with cgroups-unavailable, and 'auto' falls back to rlimits", async () => {
    if (!isRoot) throw new Error('this test needs root (it mounts a read-only hierarchy); CI runs as root')
    const required = new SandboxRuntime(resolveSandboxedBashConfig({ cwd: workdir, tempDir, ...limits }), { cgroupFiles: unwritable() })
    const error: unknown = await required.preflight().then(
      () => undefined,
      (thrown: unknown) => thrown,
    )
    required.dispose()
    expect(SandboxUnavailableError.isInstance(error)).toBe(true)
    expect((error as SandboxUnavailableError).reason).toBe('cgroups-unavailable')
    expect((error as Error).message).toContain(`cannot create a cgroup in ${readOnlyHierarchy} (EROFS)`)
    expect((error as SandboxUnavailableError).fix).toMatch(/Delegate=yes|resourceLimits to 'auto'/)
    expect(readdirSync(tempDir)).toEqual([]) // nothing of the executor was made

    const auto = new SandboxRuntime(resolveSandboxedBashConfig({ cwd: workdir, tempDir, ...limits, resourceLimits: 'auto' }), {
      cgroupFiles: unwritable(),
    })
    try {
      await auto.preflight()
      expect(auto.sandboxed).toBe(true)
      expect(auto.limiter?.limits).toEqual({ memory: { bytes: 268_435_456, mechanism: 'rlimit' }, processes: { max: 64, mechanism: 'rlimit' } })
    } finally {
      auto.dispose()
    }
  })

  it("unprivileged (effective uid 65534 on the real cgroup file system): loading with resourceLimits: 'cgroup' fails with SandboxUnavailableError, and nothing is provided", async () => {
    if (!isRoot) throw new Error('this test switches its effective uid to 65534 and back, which needs root; CI runs as root')
    const { seteuid, setegid } = process
    if (seteuid === undefined || setegid === undefined) throw new Error('process.seteuid is missing (not POSIX?)')
    let error: unknown
    setegid(NOBODY)
    seteuid(NOBODY)
    try {
      error = await loadSandboxed({ cwd: workdir, tempDir, hideDefaultSecrets: false, ...limits }).then(
        async (loaded) => {
          await loaded.fiber.dispose()
          return undefined
        },
        (thrown: unknown) => thrown,
      )
    } finally {
      seteuid(0)
      setegid(0)
    }
    expect(SandboxUnavailableError.isInstance(error), String(error)).toBe(true)
    expect((error as SandboxUnavailableError).reason).toBe('cgroups-unavailable')
    expect((error as Error).message).toMatch(/cannot create a cgroup in \/sys\/fs\/cgroup\/\S+ \(EACCES\)|not delegated/)
    expect(readdirSync(tempDir)).toEqual([])
  })
})
