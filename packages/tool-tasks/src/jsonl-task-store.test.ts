import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { findUnbrandedErrorClasses } from '@dsh/tools-core'
import ts from 'typescript'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import * as storeModule from './jsonl-task-store.js'
import {
  JsonlTaskStore,
  MAX_JSONL_TASK_STORE_LINE_BYTES,
  TaskStoreConfigError,
  TaskStoreCorruptError,
  TaskStoreInUseError,
  TaskStoreIoError,
  TaskStoreRecordError,
  TaskStoreRecordTooLargeError,
  TaskStoreUnavailableError,
  TaskStoreVersionError,
  type JsonlTaskStoreOptions,
  type JsonlTaskStoreProblem,
} from './jsonl-task-store.js'
import type { StoredTask } from './task-store.js'

let dir: string
let file: string
const opened: JsonlTaskStore[] = []

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dsh-jsonl-task-store-'))
  file = join(dir, 'tasks.jsonl')
})

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close()
  rmSync(dir, { recursive: true, force: true })
})

function openStore(options: Partial<JsonlTaskStoreOptions> = {}): { store: JsonlTaskStore; problems: JsonlTaskStoreProblem[] } {
  const problems: JsonlTaskStoreProblem[] = []
  const store = new JsonlTaskStore({ path: file, onError: (error) => problems.push(error), ...options })
  opened.push(store)
  return { store, problems }
}

function task(id: string, overrides: Partial<StoredTask> = {}): StoredTask {
  return { id, owner: 'agent-1', tool: 'bash', callId: `call-${id}`, title: `job ${id}`, status: 'working', startedAt: 1000, outputBytes: 0, ...overrides }
}

function saveLine(stored: StoredTask): string {
  return JSON.stringify({ v: 1, op: 'save', task: stored })
}

/** The file's lines; fails when the file does not end with a newline. */
function lines(path = file): string[] {
  const text = readFileSync(path, 'utf8')
  if (text === '') return []
  expect(text.endsWith('\n')).toBe(true)
  return text.slice(0, -1).split('\n')
}

function leftovers(): string[] {
  return readdirSync(dir).filter((name) => name.endsWith('.tmp'))
}

describe('JsonlTaskStore', () => {
  it('round-trips save and drop through a new store on the same file, the latest record of an id winning', async () => {
    const first = openStore()
    expect(await first.store.load()).toEqual([])
    first.store.save(task('a', { startedAt: 1 }))
    first.store.save(task('b', { startedAt: 2 }))
    first.store.save(task('c', { startedAt: 3 }))
    const finished = task('a', { startedAt: 1, status: 'completed', endedAt: 9, outputBytes: 12, result: { content: [{ type: 'text', text: 'done' }], isError: false } })
    first.store.save(finished)
    first.store.save(finished) // unchanged: no line
    first.store.drop('b')
    first.store.drop('never-saved') // no live task: no line
    expect(lines()).toHaveLength(5)
    await first.store.close()

    const second = openStore()
    expect(await second.store.load()).toEqual([finished, task('c', { startedAt: 3 })])
    expect(first.problems).toEqual([])
    expect(second.problems).toEqual([])
  })

  it('writes one versioned JSON object per line: {"v":1,"op":"save","task":…} and {"v":1,"op":"drop","id":…}', async () => {
    const { store } = openStore()
    await store.load()
    store.save(task('a'))
    store.drop('a')
    expect(lines().map((line) => JSON.parse(line) as unknown)).toEqual([
      { v: 1, op: 'save', task: task('a') },
      { v: 1, op: 'drop', id: 'a' },
    ])
  })

  it('returns tasks by startedAt, ties in order of first appearance; an update keeps the place, a drop loses it', async () => {
    const first = openStore()
    await first.store.load()
    first.store.save(task('a', { startedAt: 30 }))
    first.store.save(task('b', { startedAt: 10 }))
    first.store.save(task('c', { startedAt: 20 }))
    first.store.save(task('d', { startedAt: 10 }))
    first.store.save(task('b', { startedAt: 10, status: 'completed' }))
    await first.store.close()
    const second = openStore()
    expect((await second.store.load()).map((stored) => stored.id)).toEqual(['b', 'd', 'c', 'a'])
    second.store.drop('b')
    second.store.save(task('b', { startedAt: 10 }))
    await second.store.close()
    const third = openStore()
    expect((await third.store.load()).map((stored) => stored.id)).toEqual(['d', 'b', 'c', 'a'])
  })

  it('creates a missing directory with mode 0700 and the file with mode 0600, and keeps 0600 through compaction', async () => {
    file = join(dir, 'state', 'nested', 'tasks.jsonl')
    const { store } = openStore({ compactAfter: 1 })
    await store.load()
    store.save(task('a'))
    expect(statSync(join(dir, 'state')).mode & 0o777).toBe(0o700)
    expect(statSync(join(dir, 'state', 'nested')).mode & 0o777).toBe(0o700)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    store.save(task('b')) // compacts
    expect(lines()).toHaveLength(2)
    expect(statSync(file).mode & 0o777).toBe(0o600)
  })

  it('skips a torn last line, reports it through onError, and leaves a file that appends cleanly', async () => {
    writeFileSync(file, `${saveLine(task('a'))}\n${saveLine(task('b'))}\n${saveLine(task('c')).slice(0, 40)}`)
    const first = openStore()
    expect((await first.store.load()).map((stored) => stored.id)).toEqual(['a', 'b'])
    expect(first.problems).toHaveLength(1)
    const torn = first.problems[0]
    expect(TaskStoreCorruptError.isInstance(torn)).toBe(true)
    expect(torn).toMatchObject({ code: 'TASK_STORE_CORRUPT', line: 3, torn: true, path: file })
    expect(lines()).toEqual([saveLine(task('a')), saveLine(task('b'))])
    first.store.save(task('c'))
    await first.store.close()
    const second = openStore()
    expect((await second.store.load()).map((stored) => stored.id)).toEqual(['a', 'b', 'c'])
    expect(second.problems).toEqual([])
  })

  it('keeps a last line without its newline when it is a whole record', async () => {
    writeFileSync(file, `${saveLine(task('a'))}\n${saveLine(task('b'))}`)
    const { store, problems } = openStore()
    expect((await store.load()).map((stored) => stored.id)).toEqual(['a', 'b'])
    expect(problems).toEqual([])
    expect(lines()).toEqual([saveLine(task('a')), saveLine(task('b'))])
  })

  it('fails load on a malformed line that is not the last, naming the file and the line, and then refuses to write', async () => {
    const content = `${saveLine(task('a'))}\n{"v":1,"op":"save","task":\n${saveLine(task('b'))}\n`
    writeFileSync(file, content)
    const { store, problems } = openStore()
    const failure = await store.load().then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(TaskStoreCorruptError.isInstance(failure)).toBe(true)
    expect(failure).toMatchObject({ code: 'TASK_STORE_CORRUPT', path: file, line: 2, torn: false })
    expect((failure as Error).message).toContain(`${file}, line 2: not JSON`)
    store.save(task('c'))
    expect(problems).toHaveLength(1)
    expect(TaskStoreUnavailableError.isInstance(problems[0])).toBe(true)
    expect(problems[0]).toMatchObject({ reason: 'load-failed', operation: 'save', cause: failure })
    expect(readFileSync(file, 'utf8')).toBe(content)
  })

  it('fails load on a complete last line that is not a record (only a line without its newline counts as torn)', async () => {
    writeFileSync(file, `${saveLine(task('a'))}\nnot json\n`)
    const { store } = openStore()
    await expect(store.load()).rejects.toMatchObject({ name: 'TaskStoreCorruptError', line: 2, torn: false })
  })

  it('refuses a file with a line of a newer format version, naming the file and the line, and leaves it untouched', async () => {
    const content = `${saveLine(task('a'))}\n${JSON.stringify({ v: 2, op: 'save', task: task('b') })}\n`
    writeFileSync(file, content)
    const { store } = openStore()
    const failure: unknown = await store.load().catch((error: unknown) => error)
    expect(TaskStoreVersionError.isInstance(failure)).toBe(true)
    expect(failure).toMatchObject({ code: 'TASK_STORE_UNSUPPORTED_VERSION', path: file, line: 2, version: 2, supportedVersion: 1 })
    expect((failure as Error).message).toContain(`${file}, line 2: format version 2`)
    expect(readFileSync(file, 'utf8')).toBe(content)
  })

  it('skips and reports a record without the StoredTask shape; the id keeps its previous record', async () => {
    const bad = { ...task('a'), title: 'bad', status: 'bogus' }
    writeFileSync(
      file,
      [
        saveLine(task('a')),
        JSON.stringify({ v: 1, op: 'save', task: bad }),
        JSON.stringify({ v: 1, op: 'frob', id: 'a' }),
        JSON.stringify({ v: 1, op: 'save', task: { ...task('c'), result: { content: 'text', isError: false } } }),
        saveLine(task('d')),
        '',
      ].join('\n'),
    )
    const { store, problems } = openStore()
    expect(await store.load()).toEqual([task('a'), task('d')])
    expect(problems.map((problem) => [problem.name, (problem as TaskStoreRecordError).line, (problem as TaskStoreRecordError).taskId])).toEqual([
      ['TaskStoreRecordError', 2, 'a'],
      ['TaskStoreRecordError', 3, undefined],
      ['TaskStoreRecordError', 4, 'c'],
    ])
    expect(problems[0]?.message).toContain('status: must be a task status, got "bogus"')
    expect(lines()).toEqual([saveLine(task('a')), saveLine(task('d'))])
  })

  it('compacts on load to one line per live task, atomically: no temporary file left, the file loadable', async () => {
    const records = [
      saveLine(task('a', { startedAt: 1 })),
      saveLine(task('b', { startedAt: 2 })),
      saveLine(task('a', { startedAt: 1, status: 'completed' })),
      saveLine(task('c', { startedAt: 3 })),
      JSON.stringify({ v: 1, op: 'drop', id: 'b' }),
      saveLine(task('c', { startedAt: 3, status: 'failed', error: { name: 'ToolFailedError', code: 'TOOL_FAILED' } })),
    ]
    writeFileSync(file, `${records.join('\n')}\n`)
    writeFileSync(join(dir, '.tasks.jsonl.4242.7.tmp'), 'left by a crash during a compaction')
    writeFileSync(join(dir, 'notes.tmp'), 'not ours')
    const first = openStore()
    const loaded = await first.store.load()
    expect(loaded.map((stored) => [stored.id, stored.status])).toEqual([
      ['a', 'completed'],
      ['c', 'failed'],
    ])
    expect(lines()).toEqual(loaded.map(saveLine))
    expect(leftovers()).toEqual(['notes.tmp'])
    await first.store.close()
    const second = openStore()
    expect(await second.store.load()).toEqual(loaded)
  })

  it('compacts while writing once compactAfter lines were appended, keeping only live tasks', async () => {
    const { store, problems } = openStore({ compactAfter: 5 })
    await store.load()
    const expected = new Map<string, StoredTask>()
    for (let round = 0; round < 40; round += 1) {
      const id = `t${round % 7}`
      if (round % 5 === 4) {
        store.drop(id)
        expected.delete(id)
      } else {
        const stored = task(id, { startedAt: round % 7, outputBytes: round })
        store.save(stored)
        expected.set(id, stored)
      }
      // The compacted lines (at most one per task ever live) plus at most compactAfter appended since.
      expect(lines().length).toBeLessThanOrEqual(7 + 5)
      expect(leftovers()).toEqual([])
    }
    await store.close()
    const again = openStore()
    const loaded = await again.store.load()
    expect(loaded).toEqual([...expected.values()].sort((left, right) => left.startedAt - right.startedAt))
    expect(problems).toEqual([])
  })

  it('throws TaskStoreInUseError for a second store on the same file in this process, until the first is closed', async () => {
    const { store } = openStore()
    expect(() => new JsonlTaskStore({ path: file })).toThrow(TaskStoreInUseError)
    expect(() => new JsonlTaskStore({ path: join(dir, 'sub', '..', 'tasks.jsonl') })).toThrow(/already open in this process/)
    const other = new JsonlTaskStore({ path: join(dir, 'other.jsonl') })
    opened.push(other)
    await store.close()
    await store.close() // a second close does nothing
    const next = new JsonlTaskStore({ path: file })
    opened.push(next)
    expect(await next.load()).toEqual([])
  })

  it('stores a task without its result when its line would exceed the line limit, and reports it', async () => {
    const { store, problems } = openStore()
    await store.load()
    const huge = 'x'.repeat(MAX_JSONL_TASK_STORE_LINE_BYTES)
    store.save(task('big', { status: 'completed', result: { content: [{ type: 'text', text: huge }], isError: false } }))
    store.save(task('title', { title: huge }))
    expect(problems.map((problem) => [problem.name, (problem as TaskStoreRecordTooLargeError).resultDropped])).toEqual([
      ['TaskStoreRecordTooLargeError', true],
      ['TaskStoreRecordTooLargeError', false],
    ])
    expect(problems[0]).toMatchObject({ code: 'TASK_STORE_RECORD_TOO_LARGE', taskId: 'big', limit: MAX_JSONL_TASK_STORE_LINE_BYTES })
    await store.close()
    const again = openStore()
    expect(await again.store.load()).toEqual([task('big', { status: 'completed' })])
  })

  it('stores a result of several megabytes whole', async () => {
    const { store } = openStore()
    await store.load()
    const stored = task('a', { status: 'completed', result: { content: [{ type: 'text', text: 'é'.repeat(3_000_000) }], isError: false } })
    store.save(stored)
    await store.close()
    const again = openStore()
    expect(await again.store.load()).toEqual([stored])
  })

  it('reports a failed write instead of throwing, and writes the lost record with the next compaction', async () => {
    const { store, problems } = openStore()
    await store.load()
    mkdirSync(file) // the file cannot be opened for appending now
    expect(() => store.save(task('a'))).not.toThrow()
    expect(problems).toHaveLength(1)
    expect(TaskStoreIoError.isInstance(problems[0])).toBe(true)
    expect(problems[0]).toMatchObject({ code: 'TASK_STORE_IO_FAILED', operation: 'open' })
    rmdirSync(file)
    store.save(task('b'))
    expect(problems).toHaveLength(1)
    expect(lines()).toEqual([saveLine(task('a')), saveLine(task('b'))])
  })

  it('reports an invalid task passed to save and writes nothing', async () => {
    const { store, problems } = openStore()
    await store.load()
    store.save(task('a', { startedAt: Number.NaN }))
    const circular: Record<string, unknown> = { type: 'text', text: 'x' }
    circular['self'] = circular
    store.save(task('b', { result: { content: [circular as never], isError: false } }))
    store.drop('' as string)
    expect(problems.map((problem) => problem.name)).toEqual(['TaskStoreRecordError', 'TaskStoreRecordError', 'TaskStoreRecordError'])
    expect(problems[0]).toMatchObject({ code: 'TASK_STORE_INVALID_RECORD', taskId: 'a', line: undefined })
    expect(readdirSync(dir)).toEqual([])
  })

  it('refuses and reports save and drop before load and after close; load after close rejects', async () => {
    const { store, problems } = openStore()
    store.save(task('a'))
    await store.load()
    await store.close()
    store.save(task('b'))
    store.drop('b')
    expect(problems.map((problem) => [problem.name, (problem as TaskStoreUnavailableError).reason, (problem as TaskStoreUnavailableError).operation])).toEqual([
      ['TaskStoreUnavailableError', 'not-loaded', 'save'],
      ['TaskStoreUnavailableError', 'closed', 'save'],
      ['TaskStoreUnavailableError', 'closed', 'drop'],
    ])
    await expect(store.load()).rejects.toMatchObject({ name: 'TaskStoreUnavailableError', reason: 'closed', operation: 'load' })
    expect(readdirSync(dir)).toEqual([])
  })

  it('survives an onError that throws', async () => {
    const { store } = openStore({
      onError: () => {
        throw new Error('the host failed')
      },
    })
    expect(() => store.save(task('a'))).not.toThrow()
    await store.load()
    store.save(task('a'))
    expect(lines()).toHaveLength(1)
  })

  it('rejects invalid options with TaskStoreConfigError', () => {
    expect(() => new JsonlTaskStore({ path: 'relative/tasks.jsonl' })).toThrow(TaskStoreConfigError)
    expect(() => new JsonlTaskStore({ path: file, compactAfter: 0 })).toThrow(/compactAfter: must be a positive integer or Infinity, got 0/)
    const unlimited = new JsonlTaskStore({ path: file, compactAfter: Infinity })
    opened.push(unlimited)
  })

  it('brands every exported error class', () => {
    expect(findUnbrandedErrorClasses(storeModule)).toEqual([])
  })
})

// --- a real SIGKILL ---------------------------------------------------------------------------------------------------

const bigText = 8 * 1024 * 1024

/** Task `index` as the child writes it (the child's script has the same rule). */
function childTask(index: number): StoredTask {
  const text = String(index % 10).repeat(index % 4 === 3 ? bigText : 100)
  return {
    id: `task-${index}`,
    owner: 'agent-1',
    tool: 'bash',
    callId: `call-${index}`,
    title: `job ${index}`,
    status: 'completed',
    startedAt: 1000 + index,
    endedAt: 2000 + index,
    outputBytes: text.length,
    result: { content: [{ type: 'text', text }], isError: false },
  }
}

/**
 * The child's script: the real store (transpiled from this package's source), `load`, then forever: print
 * `start i`, save task i, drop task i-4 unless i is a multiple of 4, print `i` (the acknowledgement). Every fourth
 * task carries an 8 MiB result, so a kill can land inside its write(2).
 */
const childScript = `
import { writeSync } from 'node:fs'
const [storeUrl, path, compactAfter] = process.argv.slice(2)
const { JsonlTaskStore } = await import(storeUrl)
const store = new JsonlTaskStore({ path, compactAfter: Number(compactAfter), onError: (error) => writeSync(2, error.message + '\\n') })
await store.load()
function childTask(index) {
  const text = String(index % 10).repeat(index % 4 === 3 ? ${bigText} : 100)
  return {
    id: 'task-' + index, owner: 'agent-1', tool: 'bash', callId: 'call-' + index, title: 'job ' + index,
    status: 'completed', startedAt: 1000 + index, endedAt: 2000 + index, outputBytes: text.length,
    result: { content: [{ type: 'text', text }], isError: false },
  }
}
for (let index = 0; ; index += 1) {
  writeSync(1, 'start ' + index + '\\n')
  store.save(childTask(index))
  if (index >= 4 && index % 4 !== 0) store.drop('task-' + (index - 4))
  writeSync(1, index + '\\n')
}
`

/** The live ids after the child's iteration `last` (-1: none), as the store must have them. */
function liveAfter(last: number): string[] {
  const ids: string[] = []
  for (let index = 0; index <= last; index += 1) if (index % 4 === 0 || index > last - 4) ids.push(`task-${index}`)
  return ids
}

/**
 * Transpiles the store's source, and every module of this package it imports, into `folder` for a plain `node` child,
 * with `@dsh/tools-core` as a file URL. Returns the store module's URL.
 */
function transpileStore(folder: string): string {
  const require = createRequire(import.meta.url)
  const corePackage = require.resolve('@dsh/tools-core/package.json')
  const coreEntry = (JSON.parse(readFileSync(corePackage, 'utf8')) as { exports: { '.': { import: string } } }).exports['.'].import
  const coreUrl = JSON.stringify(pathToFileURL(join(dirname(corePackage), coreEntry)).href)
  writeFileSync(join(folder, 'package.json'), '{ "type": "module" }\n')
  const pending = ['jsonl-task-store']
  const done = new Set<string>()
  while (pending.length > 0) {
    const name = pending.pop() as string
    if (done.has(name)) continue
    done.add(name)
    const source = readFileSync(fileURLToPath(new URL(`./${name}.ts`, import.meta.url)), 'utf8')
    const output = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    }).outputText
    const linked = output.replaceAll("from '@dsh/tools-core'", `from ${coreUrl}`)
    for (const [, sibling] of linked.matchAll(/from '\.\/([a-z-]+)\.js'/g)) pending.push(sibling as string)
    expect(linked).not.toMatch(/from '(?!file:|node:|\.\/)/) // every import resolved: node:*, the core's file URL, and siblings
    writeFileSync(join(folder, `${name}.js`), linked)
  }
  return pathToFileURL(join(folder, 'jsonl-task-store.js')).href
}

/**
 * When to SIGKILL the child, counted from its `start <index>`: after `delayMs`, or (`'mid-write'`) as soon as the
 * file grows, that is while save `index` is inside its write(2) (the save serialises for tens of milliseconds first).
 */
interface KillPoint {
  readonly index: number
  readonly after: number | 'mid-write'
}

interface KilledChild {
  /** Iterations the child acknowledged (all of its stdout, read to the end). */
  readonly acknowledged: number
  readonly signal: NodeJS.Signals | null
  readonly stderr: string
}

async function runAndKill(storeUrl: string, path: string, compactAfter: number, kill: KillPoint): Promise<KilledChild> {
  const script = join(dir, 'writer.mjs')
  writeFileSync(script, childScript)
  const child = spawn(process.execPath, [script, storeUrl, path, String(compactAfter)], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  let armed = true
  const guard = setTimeout(() => child.kill('SIGKILL'), 30_000)
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
    if (!armed || !stdout.includes(`start ${kill.index}\n`)) return
    armed = false
    if (kill.after !== 'mid-write') {
      setTimeout(() => child.kill('SIGKILL'), kill.after)
      return
    }
    const before = statSync(path).size
    const deadline = Date.now() + 5000
    while (Date.now() < deadline && statSync(path).size === before) {
      // Busy-wait on purpose: the write(2) of 8 MiB lasts a few milliseconds.
    }
    child.kill('SIGKILL')
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const signal = await new Promise<NodeJS.Signals | null>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (_code, closeSignal) => resolve(closeSignal))
  })
  clearTimeout(guard)
  return { acknowledged: stdout.split('\n').filter((line) => /^\d+$/.test(line)).length, signal, stderr }
}

/** Loads what a killed child left and checks it is the state after its last acknowledged iteration or a bit more. */
async function loadAfterKill(path: string, killed: KilledChild): Promise<{ loaded: StoredTask[]; problems: JsonlTaskStoreProblem[] }> {
  expect(killed.signal).toBe('SIGKILL')
  expect(killed.stderr).toBe('')
  const problems: JsonlTaskStoreProblem[] = []
  const store = new JsonlTaskStore({ path, onError: (error) => problems.push(error) })
  opened.push(store)
  const loaded = await store.load()
  await store.close()
  const last = killed.acknowledged - 1
  // Killed after iteration `last`, or inside the next one: after its save, or after its drop too.
  const allowed = [liveAfter(last), [...liveAfter(last), `task-${last + 1}`], liveAfter(last + 1)].map((ids) => ids.join(' '))
  expect(allowed).toContain(loaded.map((stored) => stored.id).join(' '))
  expect(loaded).toEqual(loaded.map((stored) => childTask(Number(stored.id.slice('task-'.length)))))
  for (const problem of problems) expect(problem).toMatchObject({ name: 'TaskStoreCorruptError', torn: true })
  expect(problems.length).toBeLessThanOrEqual(1)
  expect(readdirSync(dirname(path)).filter((name) => name.startsWith(`.${basename(path)}.`))).toEqual([])
  if (readdirSync(dirname(path)).includes(basename(path))) lines(path) // ends with a newline again
  return { loaded, problems }
}

describe('JsonlTaskStore and SIGKILL', () => {
  it('keeps every save that returned before a SIGKILL at an arbitrary point, and load never fails', async () => {
    const storeUrl = transpileStore(dir)
    // Kill points sweep serialising and writing an 8 MiB task, the small saves and drops, and the compactions.
    for (const [round, after] of [0, 10, 25, 40, 50, 55, 60, 65, 75, 90, 120].entries()) {
      const path = join(dir, `round-${round}.jsonl`)
      const index = 3 + 4 * (round % 3)
      const killed = await runAndKill(storeUrl, path, 4, { index, after })
      expect(killed.acknowledged).toBeGreaterThanOrEqual(index)
      await loadAfterKill(path, killed)
    }
  })

  it('skips the line a SIGKILL cut short inside write(2), keeps every complete record, and appends after it', async () => {
    const storeUrl = transpileStore(dir)
    let torn = 0
    // The kill lands inside the 8 MiB write(2) nearly every time (the kernel then stops it at a page boundary); on a
    // loaded machine it may land later, so the child is run again until one line was torn (at most 8 times).
    for (let attempt = 0; attempt < 8 && torn === 0; attempt += 1) {
      const index = 3 + 4 * (attempt % 3)
      const path = join(dir, `torn-${attempt}.jsonl`)
      const killed = await runAndKill(storeUrl, path, 1000, { index, after: 'mid-write' })
      expect(killed.acknowledged).toBeGreaterThanOrEqual(index)
      const { loaded, problems } = await loadAfterKill(path, killed)
      torn += problems.length
      if (problems.length === 1 && killed.acknowledged === index) {
        expect(loaded.map((stored) => stored.id)).toEqual(liveAfter(index - 1))
        // Before it: a save per earlier iteration, and a drop per earlier iteration past 4 not a multiple of 4.
        const drops = Array.from({ length: index }, (_, earlier) => earlier).filter((earlier) => earlier >= 4 && earlier % 4 !== 0).length
        expect(problems[0]).toMatchObject({ line: index + drops + 1 })
      }
      file = path
      const again = openStore()
      await again.store.load()
      again.store.save(childTask(100))
      await again.store.close()
      const last = openStore()
      expect((await last.store.load()).map((stored) => stored.id)).toEqual([...loaded.map((stored) => stored.id), 'task-100'])
      expect(last.problems).toEqual([])
    }
    expect(torn).toBe(1)
  })
})
