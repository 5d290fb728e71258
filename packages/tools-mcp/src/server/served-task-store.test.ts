// The served task store on its own, with fake timers: ttl (honoured, bounded, expiry drops and cancels), a tool's
// maximum run time, the caps per owner, owner scoping, closing, and option checks.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { McpConfigError } from '../mcp-config-error.js'
import { resolveTaskOptions, ServedTasks, taskPolicyOf, type ServedTaskOptions } from './served-tasks.js'

beforeEach(() => vi.useFakeTimers())
afterEach(() => vi.useRealTimers())

const store = (options: ServedTaskOptions = {}) => new ServedTasks(resolveTaskOptions(options)!)
const done = { kind: 'result', result: { content: [] }, isError: false } as const

describe('ServedTasks', () => {
  it('keeps a task for its ttl from creation (a finished one too); then its id is unknown and nothing is left scheduled', () => {
    const tasks = store()
    const task = tasks.create({ owner: 'a', generation: 'legacy', ttlMs: 5_000 })!
    task.finish(done)
    vi.advanceTimersByTime(4_999)
    expect(tasks.get(task.id, 'a')).toBe(task)
    vi.advanceTimersByTime(1)
    expect(tasks.get(task.id, 'a')).toBeUndefined()
    expect(tasks.size).toBe(0)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('cancels a task still running when its ttl elapses', () => {
    const tasks = store()
    const task = tasks.create({ owner: 'a', generation: 'modern' })!
    expect(task.ttlMs).toBe(1_800_000)
    vi.advanceTimersByTime(1_800_000)
    expect(task.signal.aborted).toBe(true)
    expect(task.dropped).toBe(true)
  })

  it("bounds the ttl a client asks for (at least one second, at most maxTtlMs)", () => {
    const tasks = store({ maxTtlMs: 60_000 })
    expect(tasks.create({ owner: 'a', generation: 'legacy', ttlMs: 1 })!.ttlMs).toBe(1_000)
    expect(tasks.create({ owner: 'a', generation: 'legacy', ttlMs: 10_000_000 })!.ttlMs).toBe(60_000)
    expect(tasks.create({ owner: 'a', generation: 'legacy', ttlMs: 30_000.5 })!.ttlMs).toBe(30_000)
  })

  it("fires the signal at the tool's maximum run time, counted from the call's start", () => {
    const tasks = store()
    const task = tasks.create({ owner: 'a', generation: 'modern', maxRuntimeMs: 1_000, startedAt: Date.now() - 400 })!
    vi.advanceTimersByTime(599)
    expect(task.signal.aborted).toBe(false)
    vi.advanceTimersByTime(1)
    expect(task.signal.aborted).toBe(true)
    expect(task.status).toBe('cancelled')
  })

  it('never leaves a terminal status: a cancelled task stays cancelled when its call ends', () => {
    const tasks = store()
    const task = tasks.create({ owner: 'a', generation: 'modern' })!
    expect(task.cancel('stop')).toBe(true)
    task.finish(done)
    expect(task.status).toBe('cancelled')
    expect(task.outcome).toBeUndefined()
    expect(task.cancel('again')).toBe(false)
  })

  it('2025-11-25 fails a task on a tool error; 2026-07-28 completes it', () => {
    const tasks = store()
    const legacy = tasks.create({ owner: 'a', generation: 'legacy' })!
    const modern = tasks.create({ owner: 'a', generation: 'modern' })!
    legacy.finish({ ...done, isError: true })
    modern.finish({ ...done, isError: true })
    expect([legacy.status, modern.status]).toEqual(['failed', 'completed'])
  })

  it('caps running tasks per owner, and evicts the oldest finished task past the kept cap', () => {
    const tasks = store({ maxRunningTasks: 2, maxKeptTasks: 3 })
    const [first, second] = [tasks.create({ owner: 'a', generation: 'legacy' })!, tasks.create({ owner: 'a', generation: 'legacy' })!]
    expect(tasks.hasRoom('a')).toBe(false)
    expect(tasks.create({ owner: 'a', generation: 'legacy' })).toBeUndefined()
    expect(tasks.hasRoom('b')).toBe(true)
    first.finish(done)
    const third = tasks.create({ owner: 'a', generation: 'legacy' })!
    third.finish(done)
    const fourth = tasks.create({ owner: 'a', generation: 'legacy' })!
    expect(tasks.get(first.id, 'a')).toBeUndefined()
    expect([second, third, fourth].map((task) => tasks.get(task.id, 'a'))).toEqual([second, third, fourth])
  })

  it("reads another owner's id exactly as an unknown one, and lists an owner's tasks only, in pages", () => {
    const tasks = store({ maxRunningTasks: 60, maxKeptTasks: 100 })
    const mine = Array.from({ length: 55 }, () => tasks.create({ owner: 'a', generation: 'legacy' })!)
    tasks.create({ owner: 'b', generation: 'legacy' })
    expect(tasks.get(mine[0]!.id, 'b')).toBeUndefined()
    const first = tasks.list('a', undefined)!
    expect(first.tasks).toHaveLength(50)
    const second = tasks.list('a', first.nextCursor)!
    expect([...first.tasks, ...second.tasks]).toEqual(mine)
    expect(second.nextCursor).toBeUndefined()
    expect(tasks.list('a', 'not a cursor')).toBeUndefined()
  })

  it('closeOwner cancels and forgets one owner; close cancels everything and refuses new tasks', () => {
    const tasks = store()
    const a = tasks.create({ owner: 'a', generation: 'legacy' })!
    const b = tasks.create({ owner: 'b', generation: 'legacy' })!
    tasks.closeOwner('a')
    expect([a.signal.aborted, b.signal.aborted]).toEqual([true, false])
    tasks.close()
    expect(b.signal.aborted).toBe(true)
    expect(tasks.size).toBe(0)
    expect(tasks.create({ owner: 'b', generation: 'legacy' })).toBeUndefined()
    expect(vi.getTimerCount()).toBe(0)
  })
})

describe('options and policies', () => {
  it('rejects invalid options with McpConfigError, and false turns tasks off', () => {
    expect(resolveTaskOptions(false)).toBeUndefined()
    for (const bad of [{ ttlMs: 0 }, { maxRunningTasks: 0 }, { maxRunningTasks: 10, maxKeptTasks: 5 }, { pollIntervalMs: 1.5 }, { autoBackgroundAfterMs: -1 }]) {
      expect(() => resolveTaskOptions(bad)).toThrow(McpConfigError)
    }
    expect(() => resolveTaskOptions('yes' as never)).toThrow(McpConfigError)
  })

  it('reads a tool definition defensively: only optional and required background make tasks', () => {
    expect(taskPolicyOf({ execution: { background: 'optional', autoBackgroundAfterMs: 300 } })).toEqual({ background: 'optional', autoBackgroundAfterMs: 300, maxRuntimeMs: undefined })
    expect(taskPolicyOf({ execution: { background: 'required', autoBackgroundAfterMs: -5, maxRuntimeMs: 'x' } })).toEqual({ background: 'required', autoBackgroundAfterMs: undefined, maxRuntimeMs: undefined })
    expect(taskPolicyOf({ execution: { background: 'forbidden' } })).toBeUndefined()
    expect(taskPolicyOf({})).toBeUndefined()
    const revoked = Proxy.revocable({}, {})
    revoked.revoke()
    expect(taskPolicyOf(revoked.proxy)).toBeUndefined()
  })
})
