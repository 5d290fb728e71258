import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'

const packageDir = join(import.meta.dirname, '..')
/** Each run starts node with tsx and an SDK: generous, so a loaded machine does not fail it. */
const RUN_TIMEOUT_MS = 60_000
const children = new Set<ChildProcess>()

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs an example as `npm run example:<name>` does, offline: no API key in its environment. */
function runExample(name: string, env: Record<string, string> = {}, onStdout?: (text: string, child: ChildProcess) => void): Promise<Run> {
  const base: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', ...env }
  for (const key of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY']) delete base[key]
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `src/${name}.ts`], { cwd: packageDir, env: base, stdio: ['ignore', 'pipe', 'pipe'] })
    children.add(child)
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
      onStdout?.(stdout, child)
    })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (code) => {
      children.delete(child)
      resolve({ code, stdout, stderr })
    })
  })
}

afterEach(() => {
  for (const child of children) child.kill('SIGKILL')
  children.clear()
})

/** The transcript every example prints after its first line; only where the post-execute context goes differs. */
function transcript(contextLine: string): string[] {
  return [
    'user: List the files, read notes.txt, then delete todo.txt. Summarise what happened in one sentence.',
    'step 1: 3 tool calls',
    '  list_files {} -> ok: notes.txt todo.txt',
    '  read_file {"path":"notes.txt"} -> ok: Ship the provider loops on Friday.',
    '  delete_file {"path":"todo.txt"} -> error DENIED: The call to "delete_file" was denied: this workspace is read-only',
    contextLine,
    'assistant: There are two files; notes.txt says to ship the provider loops on Friday, and todo.txt was not deleted because the workspace is read-only.',
  ]
}

const providerLoop = {
  firstLine: /^offline: replaying recorded responses \(set [A-Z]+_API_KEY to use the real API\)$/,
  // executeStep hands the context back apart from the results; the loops send it after all of them.
  lines: transcript('  + context after the results (notes): Note: notes.txt is shared; quote it, do not edit it.'),
}

describe.each([
  { name: 'openai', ...providerLoop },
  { name: 'anthropic', ...providerLoop },
  { name: 'gemini', ...providerLoop },
  {
    name: 'ai-sdk',
    firstLine: /^offline: a scripted model \(the AI SDK's MockLanguageModelV3\) plays the model$/,
    // The AI SDK's loop has no place after a step's results: the context ends the read_file result itself.
    lines: transcript('  + context in the read_file result (notes): Note: notes.txt is shared; quote it, do not edit it.'),
  },
])('the $name example, offline', ({ name, firstLine, lines: expected }) => {
  it('runs the two-step loop offline: parallel reads, a denied delete, the context, the answer', async () => {
    const run = await runExample(name)
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const lines = run.stdout.trim().split('\n')
    expect(lines[0]).toMatch(firstLine)
    expect(lines.slice(1)).toEqual(expected)
  }, RUN_TIMEOUT_MS)

  it('Ctrl-C while the model is answering cancels the run, closes everything and exits with 130', async () => {
    let sent = false
    const run = await runExample(name, { REPLAY_DELAY_MS: '60000' }, (stdout, child) => {
      if (!sent && stdout.includes('user: ')) {
        sent = true
        child.kill('SIGINT')
      }
    })
    expect(sent).toBe(true)
    expect(run.stderr.trim()).toBe('cancelled (Ctrl-C)')
    expect(run.code).toBe(130)
    expect(run.stdout).not.toContain('step 1')
  }, RUN_TIMEOUT_MS)
})
