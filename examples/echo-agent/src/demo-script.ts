import type { ToolExecutionResult } from '@dsh/tools-core'
import type { DemoCall, DemoStep } from './demo-model.js'

/** The notes file the demo's workspace starts with. */
export const INITIAL_NOTES = '# Notes\n\n- TODO: try the echo agent\n- read the cookbook\n'
/** The notes after the model's edit. */
export const EDITED_NOTES = '# Notes\n\n- DONE: try the echo agent\n- read the cookbook\n- write a tool of my own\n'
/** A fake credential in the workspace's `.env`, for the post-execute policy to redact. */
export const FAKE_ENV = 'API_TOKEN=sk-demo-4f9c2a7e1b3d5f60\nLOG_LEVEL=debug\n'
/** The file the dev server script creates once it has printed its first line. */
export const SERVER_READY_FILE = '.server-ready'

/**
 * The program of the Code Mode step: three word counts at once (word_count is parallel-safe), then a write the
 * demo's policy asks a person about, caught when it fails so the program still answers.
 */
export const CODE_MODE_PROGRAM = `const sentences: string[] = [
  'The pipeline validates every call.',
  'A program calls tools through the same pipeline, and every sub-call shows up in the ledger.',
  'Cards show what ran.',
]
const counts = await Promise.all(sentences.map((text) => tools.word_count({ text })))
const longest = counts.reduce((best, count, index) => (count.words > counts[best].words ? index : best), 0)
console.log(\`word counts: \${counts.map((count) => count.words).join(', ')}\`)
let saved = 'not saved'
try {
  await tools.write_file({ path: 'longest.txt', content: sentences[longest] })
  saved = 'saved to longest.txt'
} catch (error) {
  saved = \`not saved: \${error.code}\`
}
return { longest: sentences[longest], words: counts[longest].words, saved }`
/**
 * The workspace's dev server script: it prints a line, then runs until it is stopped. It also touches
 * {@link SERVER_READY_FILE}, which only the demo's scripted model looks at (see {@link DemoScriptOptions}).
 */
export const SERVE_SCRIPT = `echo "dev server: listening on http://localhost:4173"\ntouch ${SERVER_READY_FILE}\nexec sleep 600\n`

function firstResult(previous: { readonly results: readonly ToolExecutionResult[] } | undefined): ToolExecutionResult | undefined {
  return previous?.results[0]
}

function codeOf(result: ToolExecutionResult | undefined): string | undefined {
  return result === undefined ? undefined : result.isError ? (result.error?.code ?? 'TOOL_FAILED') : 'ok'
}

/** The task id in the `meta` of a background `bash` call's result. */
export function taskIdOf(result: ToolExecutionResult | undefined): string | undefined {
  const meta = result?.meta
  if (typeof meta !== 'object' || meta === null) return undefined
  const taskId = (meta as { readonly taskId?: unknown }).taskId
  return typeof taskId === 'string' ? taskId : undefined
}

/** The task id in the `meta` of a call that became a task (`@dsh/tool-tasks`). */
export function taskOfResult(result: ToolExecutionResult | undefined): string | undefined {
  const task = (result?.meta as { readonly task?: { readonly id?: unknown } } | undefined)?.task
  return typeof task?.id === 'string' ? task.id : undefined
}

/** What the script needs from the world outside the model. */
export interface DemoScriptOptions {
  /**
   * Resolves once the background command has printed its first line. A real model takes seconds to answer; the
   * demo waits for this instead, so `bash_output` shows the same output on every run.
   */
  readonly serverReady: () => Promise<void>
}

/**
 * The demo session: fourteen model turns that take one tool call through every stage of the pipeline. Turns that
 * react to a result (the corrected arguments, the fallback to bash, the task id) return no calls when the result
 * is not what they react to, which ends the session early; the demo then reports that it did not go as scripted.
 */
export function demoSteps(options: DemoScriptOptions): DemoStep[] {
  const bashStart = (context: { readonly previous: { readonly results: readonly ToolExecutionResult[] } | undefined }): DemoCall[] =>
    codeOf(firstResult(context.previous)) === 'TOOL_TIMEOUT'
      ? [
          {
            name: 'bash',
            arguments: {
              command: 'bash serve.sh',
              description: 'Start the dev server',
              run_in_background: true,
            },
            expect: 'ok',
          },
        ]
      : []

  return [
    {
      say: 'Hello! I will say hello and count the words of your sentence at once: both tools are concurrency-safe.',
      calls: [
        { name: 'echo', arguments: { text: 'hello from the echo agent' }, expect: 'ok' },
        {
          name: 'word_count',
          arguments: { text: 'The pipeline validates, the pipeline decides, then the pipeline runs the tool.', top: 2 },
          expect: 'ok',
        },
      ],
    },
    {
      say: 'Now the same thing three times, loudly.',
      calls: [{ name: 'echo', arguments: { text: 42, times: 9, shout: 'yes' }, expect: 'INVALID_ARGS' }],
    },
    {
      say: 'My arguments were wrong: text must be a string, times 1 to 3, shout a boolean. Again:',
      calls: ({ previous }) =>
        codeOf(firstResult(previous)) === 'INVALID_ARGS'
          ? [{ name: 'echo', arguments: { text: 'forty-two', times: 3, shout: true }, expect: 'ok' }]
          : [],
    },
    {
      say: 'Let me read your notes.',
      calls: [{ name: 'read_file', arguments: { path: 'notes.md' }, expect: 'UNKNOWN_TOOL' }],
    },
    {
      say: 'There is no read_file tool; bash will do. Is anything left to do, or to fix?',
      calls: ({ previous }) =>
        codeOf(firstResult(previous)) === 'UNKNOWN_TOOL'
          ? [{ name: 'bash', arguments: { command: 'grep -n TODO notes.md && grep -c FIXME notes.md' }, expect: 'ok' }]
          : [],
    },
    {
      say: 'One TODO and no FIXME (grep exits with 1 when it finds nothing). I will mark the TODO done.',
      calls: [{ name: 'write_file', arguments: { path: 'notes.md', content: EDITED_NOTES }, expect: 'ok' }],
    },
    {
      say: 'Let me check the configuration.',
      calls: [{ name: 'bash', arguments: { command: 'cat .env' }, expect: 'ok' }],
    },
    {
      say: 'The workspace is cluttered. I will clean up everything.',
      calls: [{ name: 'bash', arguments: { command: 'rm -rf /' }, expect: 'GUARD_DENIED' }],
    },
    {
      say: 'Understood. Let me search the archive for older notes instead.',
      calls: [{ name: 'search_archive', arguments: { query: 'release checklist' }, expect: 'TOOL_TIMEOUT' }],
    },
    {
      say: 'The archive is too slow. I will start the dev server in the background.',
      calls: bashStart,
    },
    {
      say: 'What has the server printed so far?',
      calls: async ({ previous }) => {
        const taskId = taskIdOf(firstResult(previous))
        if (taskId === undefined) return []
        await options.serverReady()
        return [{ name: 'bash_output', arguments: { task_id: taskId }, expect: 'ok' }]
      },
    },
    {
      say: 'It is up. That is all I needed: stopping it.',
      calls: ({ steps }) => {
        const taskId = taskIdOf(firstResult(steps.at(-2)))
        return taskId === undefined ? [] : [{ name: 'bash_kill', arguments: { task_id: taskId }, expect: 'ok' }]
      },
    },
    {
      say: 'While I am at it: the archive index needs rebuilding. It takes a while.',
      calls: [{ name: 'index_archive', arguments: {}, expect: 'ok' }],
    },
    {
      say: 'It moved to the background. I will wait for it to finish.',
      calls: ({ previous }) => {
        const taskId = taskOfResult(firstResult(previous))
        return taskId === undefined ? [] : [{ name: 'task_output', arguments: { task_id: taskId, wait_ms: 10_000 }, expect: 'ok' }]
      },
    },
    {
      say: 'Last: which of three sentences is the longest, and can I save the answer? One program does it all.',
      calls: [{ name: 'run_code', arguments: { code: CODE_MODE_PROGRAM, description: 'Compare three sentences and save the answer' }, expect: 'ok' }],
    },
  ]
}
