// Test helper (not part of the package): runs a scenario in a child Node.js process against this package's
// sources, for what must be checked outside the test process (an uncaught exception there would kill vitest or be
// reported as its own failure, not the scenario's). The sources are transpiled with TypeScript into a folder
// inside the package (so `@dsh/*` and `cordis` resolve as they do for the package), removed afterwards.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const sourceDir = dirname(fileURLToPath(import.meta.url))

/** What the child printed and how it ended. */
export interface ChildOutcome {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

let counter = 0

/** A scenario running in a child process (see {@link startInChild}). */
export interface RunningChild {
  /** The child: signal it, write to its stdin. */
  readonly process: ChildProcessWithoutNullStreams
  /** What it printed on stdout so far. */
  stdout(): string
  /** Resolves once it has exited (its transpiled copy removed); it is SIGKILLed after the timeout. */
  readonly outcome: Promise<ChildOutcome>
}

/**
 * Starts `scenario` (an ES module's text; `./index.js` is this package's entry) in a fresh `node` with piped stdio,
 * and returns at once. The transpiled copy is removed when the child exits; it is SIGKILLed after `timeoutMs`.
 */
export function startInChild(scenario: string, timeoutMs = 60_000): RunningChild {
  counter += 1
  const folder = join(sourceDir, '..', '.tmp', `child-${process.pid}-${counter}`)
  const remove = () => rmSync(folder, { recursive: true, force: true })
  mkdirSync(folder, { recursive: true })
  let child: ChildProcessWithoutNullStreams
  try {
    for (const file of readdirSync(sourceDir)) {
      if (!file.endsWith('.ts') || file.includes('.test') || file === 'child-node.ts' || file === 'test-kit.ts') continue
      const source = readFileSync(join(sourceDir, file), 'utf8')
      const output = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
      })
      writeFileSync(join(folder, file.replace(/\.ts$/, '.js')), output.outputText)
    }
    writeFileSync(join(folder, 'package.json'), '{ "type": "module" }\n')
    writeFileSync(join(folder, 'scenario.js'), scenario)
    child = spawn(process.execPath, [join(folder, 'scenario.js')], { cwd: folder, stdio: ['pipe', 'pipe', 'pipe'] })
  } catch (error) {
    remove()
    throw error
  }
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  const outcome = new Promise<ChildOutcome>((resolve, reject) => {
    child.on('error', (error) => {
      clearTimeout(timer)
      remove()
      reject(error)
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      remove()
      resolve({ code, signal, stdout, stderr })
    })
  })
  return { process: child, stdout: () => stdout, outcome }
}

/**
 * Runs `scenario` (an ES module's text; `./index.js` is this package's entry) in a fresh `node` and resolves once
 * it exits, or kills it after `timeoutMs`. The transpiled copy is removed whatever happens.
 */
export async function runInChild(scenario: string, timeoutMs = 60_000): Promise<ChildOutcome> {
  const running = startInChild(scenario, timeoutMs)
  running.process.stdin.end()
  return running.outcome
}
