import { describe, expect, it } from 'vitest'
import { locateCgroups } from './cgroup-layout.js'

// The hybrid layout of the project's machines (legacy memory and pids, a unified hierarchy offering only hugetlb).
const HYBRID_MOUNTINFO = [
  '30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
  '34 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
  '38 30 0:35 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids',
  '39 30 0:36 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd',
  '40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
].join('\n')
const HYBRID_CGROUP = ['9:name=systemd:/', '8:pids:/', '4:memory:/process_api/abc', '0::/'].join('\n')

describe('locateCgroups', () => {
  it('uses the legacy hierarchies when the unified one does not offer memory and pids (v1 fallback)', () => {
    const found = locateCgroups({ mountinfo: HYBRID_MOUNTINFO, cgroup: HYBRID_CGROUP, controllersOf: () => ['hugetlb'] })
    expect(found).toEqual({
      memory: { version: 'v1', directory: '/sys/fs/cgroup/memory/process_api/abc' },
      pids: { version: 'v1', directory: '/sys/fs/cgroup/pids' },
    })
  })

  it('prefers the unified hierarchy for each controller it offers, and names the own cgroup below its mount', () => {
    const seen: string[] = []
    const found = locateCgroups({
      mountinfo: '25 20 0:22 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate',
      cgroup: '0::/user.slice/agent.service',
      controllersOf: (directory) => {
        seen.push(directory)
        return ['cpu', 'memory', 'pids']
      },
    })
    expect(seen).toEqual(['/sys/fs/cgroup/user.slice/agent.service'])
    expect(found.memory).toEqual({ version: 'v2', directory: '/sys/fs/cgroup/user.slice/agent.service' })
    expect(found.pids).toEqual({ version: 'v2', directory: '/sys/fs/cgroup/user.slice/agent.service' })
  })

  it('mixes: pids from v2 when only it is offered there, memory from v1', () => {
    const found = locateCgroups({ mountinfo: HYBRID_MOUNTINFO, cgroup: HYBRID_CGROUP, controllersOf: () => ['pids'] })
    expect(found.pids).toEqual({ version: 'v2', directory: '/sys/fs/cgroup/unified' })
    expect(found.memory?.version).toBe('v1')
  })

  it('maps a cgroup path through a mount of a sub-tree (a container) and decodes escaped mount points', () => {
    const found = locateCgroups({
      mountinfo: '50 40 0:31 /docker/c1 /sys/fs/cgroup/my\\040memory ro,nosuid - cgroup cgroup rw,memory',
      cgroup: '4:memory:/docker/c1/agent',
      controllersOf: () => [],
    })
    expect(found).toEqual({ memory: { version: 'v1', directory: '/sys/fs/cgroup/my memory/agent' } })
  })

  it('finds nothing for a controller that is not mounted, or whose own cgroup lies outside the mounted sub-tree', () => {
    expect(locateCgroups({ mountinfo: '', cgroup: HYBRID_CGROUP, controllersOf: () => [] })).toEqual({})
    const outside = locateCgroups({
      mountinfo: '50 40 0:31 /docker/c1 /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory',
      cgroup: '4:memory:/elsewhere',
      controllersOf: () => [],
    })
    expect(outside).toEqual({})
  })
})
