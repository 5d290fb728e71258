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
    const medians = new Map<string, { p50: number; p99: number }>()
    const rounds = Math.max(1, group.rounds ?? 1)
    const listed = Object.entries(group.cases)
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
