import { createReadStream, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { BashRunMeta } from './bash-tool-meta.js'
import { loadTools, useScratch } from './test-support.js'

const { scratch } = useScratch('tool-bash-output-')

/** Checks that `path` holds `size` bytes of the repeating `pattern`, reading it in chunks. */
async function holdsPattern(path: string, pattern: string, size: number): Promise<boolean> {
  const unit = Buffer.from(pattern)
  let offset = 0
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    for (let index = 0; index < chunk.length; index++) {
      if (chunk[index] !== unit[(offset + index) % unit.length]) return false
    }
    offset += chunk.length
  }
  return offset === size
}

describe('large output through the tool', () => {
  it('200 MB: bounded memory, head/tail and omitted count right, complete spill file removed on disposal', async () => {
    await using loaded = await loadTools({ executor: { cwd: scratch, tempDir: scratch } })
    const size = 200_000_000
    const line = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!\n' // 64 bytes
    const baseline = process.memoryUsage.rss()
    let peak = baseline
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss())
    }, 2)
    const result = await loaded.call('bash', { command: `yes '${line.slice(0, -1)}' | head -c ${size}; echo done >&2` })
    clearInterval(sampler)
    peak = Math.max(peak, process.memoryUsage.rss())
    expect(peak - baseline).toBeLessThan(100 * 1024 * 1024)

    const meta = result.meta as BashRunMeta
    expect(meta.stdout).toEqual({ bytes: size, omittedBytes: size - 32_768, spillPath: expect.stringMatching(/-stdout\.log$/) })
    const text = loaded.text(result)
    const head = line.repeat(256) // 16384 bytes, whole lines
    const tail = line.repeat(256)
    expect(text).toBe(
      `${head}[… ${size - 32_768} bytes omitted …]\n${tail.slice(0, -1)}\n[stderr]\ndone\n` +
        `[output truncated: ${size - 32_768} of ${size} bytes of stdout omitted; full output: ${meta.stdout.spillPath}]`,
    )
    expect(result.isError).toBe(false)
    const spill = meta.stdout.spillPath as string
    expect(statSync(spill).size).toBe(size)
    expect(statSync(spill).mode & 0o777).toBe(0o600)
    expect(await holdsPattern(spill, line, size)).toBe(true)
    await loaded.t.dispose()
    expect(existsSync(spill)).toBe(false)
  }, 60_000)

  it('multi-byte characters at the cut come out whole: no replacement character, bytes add up', async () => {
    await using loaded = await loadTools({ executor: { cwd: scratch, tempDir: scratch, outputWindowBytes: 64 } })
    // 3-byte characters after one ASCII byte: both cuts (32 bytes in, 32 bytes from the end) fall inside one.
    const result = await loaded.call('bash', { command: "printf 'x'; for i in $(seq 1 100); do printf '€'; done; printf 'y'" })
    const meta = result.meta as BashRunMeta
    expect(meta.stdout.bytes).toBe(302)
    const [head = '', rest = ''] = loaded.text(result).split('\n[… ')
    const tail = rest.split('\n')[1] ?? ''
    expect(head).toBe(`x${'€'.repeat(10)}`)
    expect(tail).toBe(`${'€'.repeat(10)}y`)
    expect(Buffer.byteLength(head) + meta.stdout.omittedBytes + Buffer.byteLength(tail)).toBe(302)
    expect(loaded.text(result)).not.toContain('\uFFFD')
  })
})

describe('a spill file that cannot be made (regression: the model was told output was saved at a path that did not exist)', () => {
  it('says the full output was not saved, and why, when the spill location became a regular file (ENOTDIR)', async () => {
    const tempDir = join(scratch, 'spill-becomes-a-file')
    mkdirSync(tempDir)
    await using loaded = await loadTools({ executor: { cwd: scratch, tempDir, outputWindowBytes: 64 } })
    // Valid when the executor loaded; a regular file by the time the first spill directory is made under it.
    rmSync(tempDir, { recursive: true })
    writeFileSync(tempDir, 'a regular file, not a directory')
    const result = await loaded.call('bash', { command: 'seq 1 2000' })
    const meta = result.meta as BashRunMeta
    expect(meta.stdout.spillPath).toBeNull()
    const text = loaded.text(result)
    expect(text).toMatch(/\[output truncated: \d+ of 8893 bytes of stdout omitted; the full output was not saved \(the spill file could not be written: ENOTDIR\)\]$/)
    expect(text).not.toContain('full output:')
    expect(text).not.toContain(tempDir)
  })

  it('says so when the private spill directory was replaced after the first spill, and for the command that deletes its own spill file', async () => {
    const tempDir = join(scratch, 'spill-replaced')
    mkdirSync(tempDir)
    await using loaded = await loadTools({ executor: { cwd: scratch, tempDir, outputWindowBytes: 64 } })
    const first = await loaded.call('bash', { command: 'seq 1 2000' })
    const firstPath = (first.meta as BashRunMeta).stdout.spillPath as string
    expect(statSync(firstPath).size).toBe(8893)
    expect(loaded.text(first)).toContain(`full output: ${firstPath}]`)

    const directory = join(tempDir, readdirSync(tempDir)[0] as string)
    rmSync(directory, { recursive: true })
    writeFileSync(directory, 'in the way')
    const second = await loaded.call('bash', { command: 'seq 1 2000' })
    expect((second.meta as BashRunMeta).stdout.spillPath).toBeNull()
    expect(loaded.text(second)).toContain('the full output was not saved (the spill file could not be written: ENOTDIR)]')

    rmSync(directory)
    mkdirSync(directory, { mode: 0o700 })
    const third = await loaded.call('bash', { command: `seq 1 20000; sleep 0.2; rm -rf '${tempDir}'/dsh-bash-*/*` })
    expect((third.meta as BashRunMeta).stdout.spillPath).toBeNull()
    expect(loaded.text(third)).toMatch(/the full output was not saved \(the spill file (was removed or cut short while the command ran|could not be written: ENOENT)\)\]$/)
  })
})
