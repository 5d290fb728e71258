import { isTerminalTaskStatus, type TaskStatus } from '@dsh/tools-core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Task } from './task.js'
import { TaskOutput } from './task-output.js'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const statuses: TaskStatus[] = ['working', 'input_required', 'completed', 'failed', 'cancelled']
const owner = { agent: undefined, parents: [], id: null }

describe('Task, the state machine', () => {
  it('never leaves a terminal status, whatever transitions are asked in whatever order', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...statuses), { maxLength: 20 }), (asked) => {
        const task = new Task('task_x', 'tool', 'call', 'title', owner, 0, undefined)
        let terminal: TaskStatus | undefined
        for (const status of asked) {
          const moved = task.transition(status)
          if (terminal !== undefined) {
            expect(moved).toBe(false)
            expect(task.status).toBe(terminal)
          } else {
            expect(moved).toBe(true)
            expect(task.status).toBe(status)
            if (isTerminalTaskStatus(status)) {
              terminal = status
              expect(task.endedAt).toBeTypeOf('number')
            }
          }
        }
      }),
    )
  })

  it('wakes every reader at a change, and a wait ends at its time without one', async () => {
    const task = new Task('task_x', 'tool', 'call', 'title', owner, 0, undefined)
    const woken = Promise.all([task.changed(10_000), task.changed(10_000)])
    task.transition('input_required')
    await woken
    const started = Date.now()
    await task.changed(30)
    expect(Date.now() - started).toBeGreaterThanOrEqual(25)
  })
})

describe('TaskOutput', () => {
  const directory = (): string => mkdtempSync(join(tmpdir(), 'dsh-task-output-'))

  it('returns the same bytes for the same cursor, across the window and the spill file, for any chunking', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme-ascii', maxLength: 300 }), { maxLength: 40 }), fc.nat(), (chunks, at) => {
        const spill = directory()
        try {
          const output = new TaskOutput('t', { windowBytes: 1_024, spillCapBytes: 1_000_000, spillDirectory: spill })
          for (const chunk of chunks) output.append(chunk)
          const all = chunks.join('')
          const cursor = all.length === 0 ? 0 : at % (all.length + 1)
          const first = output.read(cursor, 1_000_000)
          expect(first.text).toBe(all.slice(cursor))
          expect(output.read(cursor, 1_000_000)).toEqual(first)
          expect(first.next).toBe(all.length)
          output.dispose()
          expect(readdirSync(spill)).toEqual([])
        } finally {
          rmSync(spill, { recursive: true, force: true })
        }
      }),
      { numRuns: 60 },
    )
  })

  it('drops what passes the spill cap and says how much was dropped; reads past the limit say how much is left', () => {
    const spill = directory()
    try {
      const output = new TaskOutput('t', { windowBytes: 1_024, spillCapBytes: 2_048, spillDirectory: spill })
      for (let index = 0; index < 100; index++) output.append('x'.repeat(99) + '\n')
      expect(output.total).toBe(10_000)
      const early = output.read(0, 100)
      expect(early.dropped).toBeGreaterThan(0)
      expect(early.from).toBe(early.dropped)
      expect(early.from).toBeGreaterThanOrEqual(10_000 - 1_024 - 2 * 2_048)
      expect(early.more).toBe(10_000 - early.next)
      const tail = output.read(9_900, 1_000)
      expect(tail.text).toBe('x'.repeat(99) + '\n')
      output.dispose()
    } finally {
      rmSync(spill, { recursive: true, force: true })
    }
  })
})
