import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { codeCall, codeResult, diffCall, diffResult, fileDiff, genericCall, genericResult, taskResult, terminalCall } from './card-builders.js'
import { renderToolCall, renderToolResult } from './render-card.js'
import { terminalResultFromMeta, terminalResultMeta } from './terminal-result-meta.js'

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
const block = (lines: string[]): string => `\`\`\`text\n${lines.join('\n')}\n\`\`\``
const plain = { color: false } as const

describe('README terminal rendering', () => {
  it('shows the current plain-text rendering of each card kind', () => {
    const read = genericCall({
      title: 'Read src/config.json',
      kind: 'read',
      rawInput: { path: '/work/app/src/config.json' },
      locations: [{ path: '/work/app/src/config.json' }],
    })
    const bash = terminalCall({ title: 'npm test', description: 'Run the unit tests', cwd: '/work/app' })
    const bashResult = terminalResultFromMeta({
      content: [{ type: 'text', text: ' ✓ parser (12 tests)\n ✗ printer (1 failed)\n[exit code: 1]\n' }],
      isError: false,
      meta: terminalResultMeta({ exitCode: 1 }),
    })
    const change = fileDiff(
      '/work/app/src/greet.ts',
      'export function greet(name: string) {\n  return "hi " + name\n}\n',
      'export function greet(name: string) {\n  return `hello, ${name}`\n}\n',
    )
    const edit = diffCall({ title: 'Edit src/greet.ts', diffs: [change] })
    const run = codeCall({
      title: 'Total size of the sources',
      language: 'typescript',
      code: [
        "const files = await tools.glob({ pattern: 'src/**/*.ts' })",
        'let total = 0',
        'for (const file of files) total += (await tools.stat({ path: file })).size',
        "await tools.write_file({ path: 'size.txt', content: String(total) })",
        'return total',
      ].join('\n'),
    })
    const ran = codeResult({
      status: 'error',
      error: 'write_file failed: DENIED (line 4)',
      durationMs: 412,
      logs: '',
      subCalls: [
        { callId: 'call_7:code:1', name: 'glob', isError: false },
        { callId: 'call_7:code:2', name: 'stat', isError: false },
        { callId: 'call_7:code:3', name: 'stat', isError: false },
        { callId: 'call_7:code:4', name: 'write_file', isError: true, code: 'DENIED' },
      ],
    })
    const expected = [
      renderToolCall(read, plain),
      renderToolResult(genericResult(), {
        ...plain,
        call: read,
        result: { content: [{ type: 'text', text: '{\n  "port": 8080\n}' }], isError: false },
      }),
      renderToolCall(bash, plain),
      renderToolResult(bashResult, { ...plain, call: bash }),
      renderToolCall(edit, plain),
      renderToolResult(diffResult({ diffs: [change] }), { ...plain, call: edit }),
      renderToolResult(
        taskResult({ title: 'Task task_3f9a1c_2 (build_site)', taskId: 'task_3f9a1c_2', status: 'working', statusMessage: 'rendering pages', progress: { progress: 41, total: 120 } }),
        { ...plain, call: genericCall({ title: 'task_output' }), result: { content: [{ type: 'text', text: 'built /index.html\nbuilt /guide.html' }], isError: false } },
      ),
      renderToolCall(run, plain),
      renderToolResult(ran, { ...plain, call: run }),
    ]
    for (const lines of expected) expect(readme).toContain(block(lines))
  })
})
