import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { SpillStore, SpillWriter } from './spill-store.js'

const root = mkdtempSync(join(tmpdir(), 'tool-bash-spill-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('SpillStore', () => {
  it('makes no directory until a file is needed', async () => {
    const store = new SpillStore({ root, capBytes: 100, onError: vi.fn() })
    expect(store.path).toBeNull()
    await store.dispose()
  })

  it('writes private files into a private directory and removes both on dispose', async () => {
    const store = new SpillStore({ root, capBytes: 1_000, onError: vi.fn() })
    const writer = store.open('stdout')
    writer.write(Buffer.from('hello '))
    writer.write(Buffer.from('world'))
    await writer.close()
    const path = writer.path as string
    expect(dirname(path)).toBe(store.path)
    expect(statSync(dirname(path)).mode & 0o777).toBe(0o700)
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(readFileSync(path, 'utf8')).toBe('hello world')
    expect(writer.info()).toEqual({ path, bytes: 11, complete: true, stoppedBy: null })
    await store.dispose()
    expect(existsSync(path)).toBe(false)
    expect(existsSync(dirname(path))).toBe(false)
  })

  it('stops at the cap shared by all files and says so', async () => {
    const store = new SpillStore({ root, capBytes: 10, onError: vi.fn() })
    const first = store.open('stdout')
    first.write(Buffer.from('123456'))
    const second = store.open('stderr')
    second.write(Buffer.from('abcdefgh'))
    second.write(Buffer.from('more'))
    await Promise.all([first.close(), second.close()])
    expect(first.info()).toMatchObject({ bytes: 6, complete: true, stoppedBy: null })
    expect(second.info()).toMatchObject({ bytes: 4, complete: false, stoppedBy: 'cap' })
    expect(readFileSync(second.path as string, 'utf8')).toBe('abcd')
    expect(store.usedBytes).toBe(10)
    const third = store.open('stdout')
    expect(third.info()).toEqual({ path: null, bytes: 0, complete: false, stoppedBy: 'cap' })
    await store.dispose()
  })

  it('reports a directory it cannot make instead of throwing', async () => {
    const onError = vi.fn()
    const store = new SpillStore({ root: join(root, 'missing', 'deeper'), capBytes: 100, onError })
    const writer = store.open('stdout')
    expect(writer.write(Buffer.from('x'))).toBe(true)
    expect(writer.info()).toEqual({ path: null, bytes: 0, complete: false, stoppedBy: 'error', failure: 'ENOENT' })
    expect(onError).toHaveBeenCalledOnce()
    await store.dispose()
  })

  it('creates files exclusively: an existing file is never written through', async () => {
    const onError = vi.fn()
    const store = new SpillStore({ root, capBytes: 100, onError })
    const writer = store.open('stdout')
    await writer.close()
    // A second writer for the same path (as if someone planted it) fails instead of truncating it.
    const intruder = new SpillWriter(store, writer.path as string, null)
    intruder.write(Buffer.from('x'))
    await intruder.close()
    expect(intruder.info()).toMatchObject({ complete: false, stoppedBy: 'error' })
    expect(onError).toHaveBeenCalledWith(expect.stringContaining('cannot write the spill file'), expect.objectContaining({ code: 'EEXIST' }))
    await store.dispose()
  })

  it('reports backpressure and wakes the producer when the file catches up', async () => {
    const store = new SpillStore({ root, capBytes: 1 << 30, onError: vi.fn() })
    const writer = store.open('stdout')
    const big = Buffer.alloc(1 << 20, 0x61)
    let accepted = true
    let writes = 0
    while (accepted) {
      accepted = writer.write(big)
      writes += 1
    }
    const drained = vi.fn()
    await new Promise<void>((resolve) => {
      writer.whenDrained(() => {
        drained()
        resolve()
      })
    })
    expect(drained).toHaveBeenCalledOnce()
    await writer.close()
    expect(statSync(writer.path as string).size).toBe(writes * big.length)
    await store.dispose()
  })

  it('names no path and says why when the directory cannot be made under a regular file (ENOTDIR)', async () => {
    const onError = vi.fn()
    const file = join(root, 'a-regular-file')
    writeFileSync(file, 'not a directory')
    const store = new SpillStore({ root: join(file, 'below'), capBytes: 100, onError })
    const writer = store.open('stdout')
    writer.write(Buffer.from('lost'))
    await writer.close()
    expect(writer.info()).toEqual({ path: null, bytes: 0, complete: false, stoppedBy: 'error', failure: 'ENOTDIR' })
    expect(store.usedBytes).toBe(0)
    await store.dispose()
  })

  it('names no path, counts no bytes and gives the cap back when the file itself cannot be created', async () => {
    const onError = vi.fn()
    const store = new SpillStore({ root, capBytes: 1_000, onError })
    const first = store.open('stdout')
    first.write(Buffer.from('kept'))
    await first.close()
    // The private directory made for the first file is replaced by a regular file: creating the next one fails
    // with ENOTDIR, after `open` has returned (the failure the old code reported as a saved path).
    const directory = store.path as string
    rmSync(directory, { recursive: true, force: true })
    writeFileSync(directory, 'in the way')
    const second = store.open('stderr')
    expect(second.write(Buffer.from('never reaches a file'))).toBe(true)
    await second.close()
    expect(second.info()).toEqual({ path: null, bytes: 0, complete: false, stoppedBy: 'error', failure: 'ENOTDIR' })
    expect(existsSync(second.path as string)).toBe(false)
    expect(store.usedBytes).toBe(4)
    expect(onError).toHaveBeenCalledWith(expect.stringContaining('cannot write the spill file'), expect.objectContaining({ code: 'ENOTDIR' }))
    rmSync(directory, { force: true })
    await store.dispose()
  })

  it('reports a file deleted before it was closed as removed, with no path', async () => {
    const store = new SpillStore({ root, capBytes: 1_000, onError: vi.fn() })
    const writer = store.open('stdout')
    writer.write(Buffer.from('written, then deleted'))
    await new Promise<void>((resolve) => writer.whenDrained(resolve))
    await waitUntilExists(writer.path as string)
    rmSync(writer.path as string)
    await writer.close()
    expect(writer.info()).toEqual({ path: null, bytes: 0, complete: false, stoppedBy: 'error', failure: 'removed' })
    await store.dispose()
  })

  it('keeps naming a file that holds the stream after closing', async () => {
    const store = new SpillStore({ root, capBytes: 1_000, onError: vi.fn() })
    const writer = store.open('stdout')
    writer.write(Buffer.from('all of it'))
    await writer.close()
    expect(writer.info()).toEqual({ path: writer.path, bytes: 9, complete: true, stoppedBy: null })
    expect(readFileSync(writer.path as string, 'utf8')).toBe('all of it')
    await store.dispose()
  })
})

async function waitUntilExists(path: string): Promise<void> {
  for (let attempt = 0; attempt < 200 && !existsSync(path); attempt++) await new Promise((resolve) => setTimeout(resolve, 5))
  expect(existsSync(path)).toBe(true)
}
