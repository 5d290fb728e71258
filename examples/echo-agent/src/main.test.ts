import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { SessionEvent } from '@dsh/tools-testing'
import { formatSessionLog } from '@dsh/tools-testing'
import { describe, expect, it } from 'vitest'
import { FAKE_ENV } from './demo-script.js'

/** The secret in the demo workspace's `.env`. */
const FAKE_SECRET = /API_TOKEN=(\S+)/.exec(FAKE_ENV)?.[1] ?? 'missing'

const packageDir = join(import.meta.dirname, '..')
/** Each run starts node with tsx and runs real commands: generous, so a loaded machine does not fail it. */
const RUN_TIMEOUT_MS = 60_000

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs the demo as `npm run demo` does (tsx, stdout a pipe, so no colours), with NO_COLOR set as well. */
function runCli(args: readonly string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
      cwd: packageDir,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/** The parts of a transcript that change from run to run: the temporary workspace, process ids, durations. */
function mask(text: string, workspace: string): string {
  return text
    .replaceAll(workspace, '<workspace>')
    .replace(/"pid":\d+/g, '"pid":"<pid>"')
    .replace(/"durationMs":[\d.]+/g, '"durationMs":"<ms>"')
    .replace(/"(startedAt|endedAt)":\d+/g, '"$1":"<time>"')
    .replace(/task_[0-9a-f]{6}_/g, 'task_<run>_')
    .replace(/The program completed in \d+ ms/g, 'The program completed in <ms> ms')
    .replace(/^(\s+)[\d.]+ m?s · /gm, '$1<duration> · ')
}

function workspaceOf(text: string): string {
  const match = /\/[^\s"]*echo-agent-[A-Za-z0-9]{6}/.exec(text)
  if (match === null) throw new Error(`no workspace path in:\n${text}`)
  return match[0]
}

describe('the demo, as `npm run demo` runs it', () => {
  it('plays the whole script and prints plain-text cards', async () => {
    const run = await runCli([])
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(run.stdout).not.toContain('\u001b[')
    const workspace = workspaceOf(run.stdout)
    expect(existsSync(workspace)).toBe(false) // removed at the end
    await expect(mask(run.stdout, workspace)).toMatchFileSnapshot('__snapshots__/demo-output.txt')
  }, RUN_TIMEOUT_MS)

  it('with --json prints the session events as JSON lines and nothing else', async () => {
    const run = await runCli(['--json'])
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const events = run.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as SessionEvent)
    expect(new Set(events.map((event) => event.type))).toEqual(new Set(['tool/call', 'tool/result', 'context/message']))
    const outcomes = events.flatMap((event) =>
      event.type === 'tool/result' ? [`${event.callId} ${event.name} ${event.result.isError ? event.result.error?.code : 'ok'}`] : [],
    )
    expect(outcomes).toEqual([
      'call_1a echo ok',
      'call_1b word_count ok',
      'call_2a echo INVALID_ARGS',
      'call_3a echo ok',
      'call_4a read_file UNKNOWN_TOOL',
      'call_5a bash ok',
      'call_6a write_file ok',
      'call_7a bash ok',
      'call_8a bash GUARD_DENIED',
      'call_9a search_archive TOOL_TIMEOUT',
      'call_10a bash ok',
      'call_11a bash_output ok',
      'call_12a bash_kill ok',
      'call_13a index_archive ok',
      'call_14a task_output ok',
      'call_15a run_code ok',
    ])
    // The redacted credential is nowhere in the event stream, and no canonical value (structuredContent) is persisted.
    expect(run.stdout).not.toContain(FAKE_SECRET)
    expect(run.stdout).toContain('API_TOKEN=[redacted]')
    expect(events.some((event) => event.type === 'tool/result' && 'structuredContent' in event.result)).toBe(false)
    const workspace = workspaceOf(run.stdout)
    await expect(mask(`${formatSessionLog(events)}\n`, workspace)).toMatchFileSnapshot('__snapshots__/demo-session-log.txt')
  }, RUN_TIMEOUT_MS)

  it('with --trace prints the span tree of the session after it, with nothing secret in it', async () => {
    const run = await runCli(['--trace'])
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const tree = run.stdout.slice(run.stdout.indexOf('Span tree of the session'))
    expect(tree).toContain('execute_tool bash [GUARD_DENIED]')
    expect(tree).toContain('task index_archive [completed] (linked to 1 call)')
    expect(tree).not.toContain(FAKE_SECRET)
    await expect(tree.replace(/· [\d.]+ ms/g, '· <ms>')).toMatchFileSnapshot('__snapshots__/demo-trace.txt')
  }, RUN_TIMEOUT_MS)

  it('explains itself with --help, and refuses unknown options', async () => {
    const help = await runCli(['--help'])
    expect(help.code).toBe(0)
    expect(help.stderr).toContain('--json')
    expect(help.stderr).toContain('--trace')
    const wrong = await runCli(['--jsn'])
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain('unknown option: --jsn')
    expect(wrong.stdout).toBe('')
  }, RUN_TIMEOUT_MS)
})
