import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import { join } from 'node:path'
import { measure } from 'mitata'

/** Options mitata's `measure` takes for one case (sample counts, time budgets; see mitata's `k_options`). */
export interface MeasureOptions {
  min_samples?: number
  max_samples?: number
  min_cpu_time?: number
  warmup_samples?: number
  warmup_threshold?: number
  batch_samples?: number
  batch_threshold?: number
  batch_unroll?: number
  samples_threshold?: number
  inner_gc?: boolean
  gc?: boolean | (() => void)
}

/** One comparison: several cases of the same work, timed in the same run, reported as ratios to a baseline. */
export interface BenchGroup {
  /** Row-group title, for example `valid 1.6 KB arguments`. */
  title: string
  /** Case functions by name. Each does one unit of the work (sync or async). */
  cases: Record<string, () => unknown>
  /** The case every ratio is computed against (the peer). */
  baseline: string
  /** The speed target: `ratio = median(case) / median(baseline)` must be at most `maxRatio`. */
  target?: { case: string; maxRatio: number; label: string }
  /** Passed to mitata for every case of the group. */
  options?: MeasureOptions
  /**
   * How many times every case is measured (default 1). Rounds alternate the order of the cases (as listed, then
   * reversed, …), and each case's row is its round with the lowest median: a case measured first after other work
   * (a tier-up or a collection still under way) then does not decide its ratio by where it stands in the list.
   */
  rounds?: number
  /**
   * Time the cases in interleaved bursts instead of one after another with mitata (synchronous cases only; `rounds`
   * and `options` are then not used): each burst calls one case for about `burstNs` (default 200 µs) through a loop
   * of its own, the cases take turns in rotating order, `bursts` times (default 400), and the first fifth is dropped
   * as warm-up. A row's median and p99 are those of its bursts' per-call times. Where the machine changes speed for
   * a while (on the 2-core bench machine a whole stretch sometimes runs at about twice its usual time), every case
   * sees the same stretches, so the ratios hold where cases measured one after another saw different ones.
   */
  interleaved?: { bursts?: number; burstNs?: number }
}

/** A benchmark suite: one section of `results.md`. */
export interface BenchSuite {
  /** Section id and title. */
  name: string
  /** What is measured and how, in a sentence or two. */
  description: string
  /** Package versions worth recording (ours and the peers'). */
  versions?: Record<string, string>
  /** Builds the groups (async so a suite can set up a Context or spawn a warm-up). */
  groups(): BenchGroup[] | Promise<BenchGroup[]>
  /** Optional teardown after measuring. */
  dispose?(): unknown
  /** Extra markdown appended under the table (measurements that are not timings, like RSS). */
  notes?(): string | Promise<string>
}

/** Declares a suite (identity; gives type inference to suite files). */
export function defineSuite(suite: BenchSuite): BenchSuite {
  return suite
}

/** One measured case. */
export interface CaseResult {
  group: string
  name: string
  medianNs: number
  p99Ns: number
  ratio: number
  target?: { maxRatio: number; label: string; met: boolean }
}

/** Runs every case of every group and returns the rows. */
export async function runSuite(suite: BenchSuite): Promise<{ rows: CaseResult[]; notes: string }> {
  const rows: CaseResult[] = []
  const groups = await suite.groups()
  for (const group of groups) {
    const listed = Object.entries(group.cases)
    const medians = group.interleaved === undefined ? new Map<string, { p50: number; p99: number }>() : measureInterleaved(listed, group.interleaved)
    if (group.interleaved !== undefined) {
      for (const [name, { p50 }] of medians) process.stdout.write(`  ${suite.name} / ${group.title} / ${name} (interleaved): ${formatNs(p50)}\n`)
    }
    const rounds = group.interleaved === undefined ? Math.max(1, group.rounds ?? 1) : 0
    for (let round = 0; round < rounds; round++) {
      for (const [name, fn] of round % 2 === 0 ? listed : [...listed].reverse()) {
        const stats = await measure(fn, group.options as Parameters<typeof measure>[1])
        const best = medians.get(name)
        if (best === undefined || stats.p50 < best.p50) medians.set(name, { p50: stats.p50, p99: stats.p99 })
        process.stdout.write(`  ${suite.name} / ${group.title} / ${name}${rounds > 1 ? ` (round ${round + 1})` : ''}: ${formatNs(stats.p50)}\n`)
      }
    }
    const base = medians.get(group.baseline)
    if (base === undefined) throw new Error(`${suite.name}: baseline "${group.baseline}" is not a case`)
    for (const [name, { p50, p99 }] of medians) {
      const row: CaseResult = { group: group.title, name, medianNs: p50, p99Ns: p99, ratio: p50 / base.p50 }
      if (group.target?.case === name) {
        row.target = { ...group.target, met: row.ratio <= group.target.maxRatio }
      }
      rows.push(row)
    }
  }
  const notes = (await suite.notes?.()) ?? ''
  await suite.dispose?.()
  return { rows, notes }
}

/** How many loops {@link loopFor} made (each loop's source is unique, so that V8 never shares one between cases). */
let loops = 0

/** A loop that calls `fn` `n` times, with a call site of its own (one shared loop would see every case's function). */
function loopFor(fn: () => unknown): (n: number) => unknown {
  const loop = new Function('f', 'n', `let r;for(let i=0;i<n;i++)r=f();return r\n//${++loops}`) as (f: () => unknown, n: number) => unknown
  return (n) => loop(fn, n)
}

/** A case made by {@link withOwnCallSites}: it can make more copies of itself, each a function of its own. */
interface Recreatable {
  readonly recreate?: () => () => unknown
}

/** How many copies of a recreatable case interleaved sampling measures (see {@link measureInterleaved}). */
const COPIES = 3

/**
 * The interleaved measurement of `BenchGroup.interleaved`: per case, the median and p99 of its bursts' per-call
 * times. A case made by {@link withOwnCallSites} is measured as three copies of itself, and its row is the copy in
 * the middle: V8 sometimes keeps a slower optimized version of one function for good (no deoptimization ever
 * replaces it), and identical copies then differed by up to three quarters; the middle one is not that copy.
 */
export function measureInterleaved(cases: [string, () => unknown][], { bursts = 400, burstNs = 200_000 }: { bursts?: number; burstNs?: number }): Map<string, { p50: number; p99: number }> {
  for (const [name, fn] of cases) {
    const result = fn()
    if (result !== null && typeof result === 'object' && typeof (result as { then?: unknown }).then === 'function') {
      throw new Error(`interleaved sampling times synchronous cases only: "${name}" returned a promise`)
    }
  }
  const copies = cases.flatMap(([name, fn]) => {
    const { recreate } = fn as Recreatable
    return [fn, ...(recreate === undefined ? [] : Array.from({ length: COPIES - 1 }, recreate))].map((copy) => ({ name, fn: copy }))
  })
  // Warm-up, in turns, through loops that are then dropped: a loop optimized while the code it calls was still
  // cold kept a slower version for good (the case calibrated first ran at about 1.75 times the same case set up
  // after it), so the measuring loops are made once everything they call is hot.
  const warming = copies.map(({ fn }) => ({ loop: loopFor(fn), calls: 1 }))
  for (let turn = 0; turn < 12; turn++) {
    for (const item of warming) {
      const start = process.hrtime.bigint()
      item.loop(item.calls)
      if (Number(process.hrtime.bigint() - start) < burstNs) item.calls *= 2
    }
  }
  const timed = copies.map(({ name, fn }) => {
    const loop = loopFor(fn)
    // Calls per burst: doubled until a burst takes burstNs.
    let calls = 1
    for (;;) {
      const start = process.hrtime.bigint()
      loop(calls)
      if (Number(process.hrtime.bigint() - start) >= burstNs || calls >= 1 << 24) break
      calls *= 2
    }
    return { name, loop, calls, times: [] as number[] }
  })
  for (let burst = 0; burst < bursts; burst++) {
    for (let turn = 0; turn < timed.length; turn++) {
      const item = timed[(burst + turn) % timed.length] as (typeof timed)[number]
      const start = process.hrtime.bigint()
      item.loop(item.calls)
      item.times.push(Number(process.hrtime.bigint() - start) / item.calls)
    }
  }
  const perCopy = new Map<string, { p50: number; p99: number }[]>()
  for (const { name, times } of timed) {
    const kept = times.slice(Math.floor(bursts / 5)).sort((a, b) => a - b)
    const stats = { p50: kept[Math.floor(kept.length / 2)] as number, p99: kept[Math.min(kept.length - 1, Math.floor(kept.length * 0.99))] as number }
    perCopy.set(name, [...(perCopy.get(name) ?? []), stats])
  }
  const result = new Map<string, { p50: number; p99: number }>()
  for (const [name, stats] of perCopy) result.set(name, stats.sort((a, b) => a.p50 - b.p50)[Math.floor(stats.length / 2)] as { p50: number; p99: number })
  return result
}

/** How many cases {@link withOwnCallSites} recreated (each one's source is made unique). */
let sites = 0

/**
 * The cases, each recreated from its source text as a function of its own, with the names it uses passed in from
 * `scope` (every name a case reads must be there). A case written once and used by several groups (a loop over
 * schemas that writes `ours: () => ours.is(valid)` for each) is otherwise one function literal whose closures share
 * V8's feedback and optimized code, so that its call sees every group's validator and value. Interleaved sampling
 * measures several copies of each (see {@link measureInterleaved}).
 */
export function withOwnCallSites(scope: Record<string, unknown>, cases: Record<string, () => unknown>): Record<string, () => unknown> {
  const names = Object.keys(scope)
  const values = names.map((name) => scope[name])
  return Object.fromEntries(
    Object.entries(cases).map(([name, fn]) => {
      const source = fn.toString()
      if (source.includes('[native code]')) throw new Error(`case "${name}": a native or bound function cannot be recreated from its source`)
      const recreate = (): (() => unknown) => {
        const made = new Function(...names, `"use strict";return (${source})\n//case ${++sites}`) as (...args: unknown[]) => () => unknown
        return Object.defineProperty(made(...values), 'recreate', { value: recreate })
      }
      return [name, recreate()]
    }),
  )
}

/** `812 ns`, `3.41 µs`, `12.0 ms`. */
export function formatNs(ns: number): string {
  if (ns < 1_000) return `${ns.toFixed(0)} ns`
  if (ns < 1_000_000) return `${(ns / 1_000).toFixed(2)} µs`
  if (ns < 1_000_000_000) return `${(ns / 1_000_000).toFixed(2)} ms`
  return `${(ns / 1_000_000_000).toFixed(2)} s`
}

/** The markdown table of a suite's rows. */
export function renderTable(rows: CaseResult[]): string {
  const lines = ['| group | case | median | p99 | ratio to baseline | target |', '| --- | --- | ---: | ---: | ---: | --- |']
  for (const row of rows) {
    const target = row.target ? `${row.target.label}: ${row.target.met ? 'met' : '**missed**'}` : ''
    lines.push(
      `| ${row.group} | ${row.name} | ${formatNs(row.medianNs)} | ${formatNs(row.p99Ns)} | ${row.ratio.toFixed(2)}× | ${target} |`,
    )
  }
  return lines.join('\n')
}

/** `bench/results.md`. */
export const resultsPath = join(import.meta.dirname, 'results.md')

const resultsHeader =
  '# Benchmark results\n\nWritten by `pnpm bench` (one section per suite in `bench/suites/`) and `pnpm soak`. Ratios are medians against the baseline case timed in the same run; a target holds when the ratio is at most the stated bound.\n'

/** One line naming the machine, for every section. */
export function describeMachine(): string {
  return `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${process.platform}/${process.arch}`
}

/** Replaces (or appends) the section `name` of results.md, keeping every other section. */
export function writeResultsSection(name: string, body: string): void {
  let results = existsSync(resultsPath) ? readFileSync(resultsPath, 'utf8') : ''
  if (!results.startsWith('# Benchmark results')) results = resultsHeader
  const section = `<!-- suite:${name} -->\n${body.trim()}\n<!-- /suite:${name} -->`
  const pattern = new RegExp(`<!-- suite:${name} -->[\\s\\S]*?<!-- /suite:${name} -->`)
  results = pattern.test(results) ? results.replace(pattern, () => section) : `${results.trimEnd()}\n\n${section}\n`
  writeFileSync(resultsPath, results)
}
