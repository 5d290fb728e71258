import { describe, expect, it, vi } from 'vitest'
import { diffCall, diffResult, fileDiff, genericCall, genericResult, terminalCall, terminalResult } from './card-builders.js'
import { renderToolCall, renderToolResult, shouldUseColor } from './render-card.js'
import { UnknownCardError } from './unknown-card-error.js'

const plain = { color: false } as const
const show = (lines: string[]): string => lines.join('\n')

const edit = fileDiff(
  '/work/app/src/greet.ts',
  'export function greet(name) {\n  return "hi " + name\n}\n',
  'export function greet(name: string) {\n  return `hello ${name}`\n}\n',
)

describe('shouldUseColor', () => {
  it('colours only a TTY without NO_COLOR', () => {
    expect(shouldUseColor({ isTTY: true }, {})).toBe(true)
    expect(shouldUseColor({ isTTY: true }, { NO_COLOR: '' })).toBe(true)
    expect(shouldUseColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false)
    expect(shouldUseColor({ isTTY: false }, {})).toBe(false)
    expect(shouldUseColor({}, {})).toBe(false)
    expect(shouldUseColor(undefined, {})).toBe(false)
  })

  it('decides the default of the renderer from process.stdout and NO_COLOR', () => {
    const descriptor = Object.getOwnPropertyDescriptor(process.stdout, 'isTTY')
    try {
      Object.defineProperty(process.stdout, 'isTTY', { value: true, configurable: true })
      vi.stubEnv('NO_COLOR', '')
      expect(renderToolCall({ card: 'generic', title: 'x' })[0]).toContain('\u001b[')
      vi.stubEnv('NO_COLOR', '1')
      expect(renderToolCall({ card: 'generic', title: 'x' })).toEqual(['• x  [running]'])
      vi.stubEnv('NO_COLOR', undefined)
      Object.defineProperty(process.stdout, 'isTTY', { value: false, configurable: true })
      expect(renderToolCall({ card: 'generic', title: 'x' })).toEqual(['• x  [running]'])
    } finally {
      vi.unstubAllEnvs()
      if (descriptor === undefined) delete (process.stdout as { isTTY?: boolean }).isTTY
      else Object.defineProperty(process.stdout, 'isTTY', descriptor)
    }
  })
})

describe('renderToolCall (plain text)', () => {
  it('renders a generic card with its icon, input, content and locations', () => {
    const view = genericCall({
      title: 'Read /work/app/README.md',
      kind: 'read',
      rawInput: { path: '/work/app/README.md', limit: 20 },
      content: [{ type: 'text', text: 'first 20 lines' }],
      locations: [{ path: '/work/app/README.md', line: 1 }],
    })
    expect(show(renderToolCall(view, plain))).toMatchInlineSnapshot(`
      "≡ Read /work/app/README.md  [running]
        input {"path":"/work/app/README.md","limit":20}
        first 20 lines
        → /work/app/README.md:1"
    `)
  })

  it('renders the generic fallback card and the pending pill', () => {
    const view = genericCall({ title: 'echo', rawInput: { text: 'hi' } })
    expect(show(renderToolCall(view, { ...plain, status: 'pending' }))).toMatchInlineSnapshot(`
      "• echo  [pending]
        input {"text":"hi"}"
    `)
  })

  it('renders a terminal card', () => {
    const view = terminalCall({ title: 'npm test -- --run', description: 'Run the unit tests', cwd: '/work/app' })
    expect(show(renderToolCall(view, plain))).toMatchInlineSnapshot(`
      "$ npm test -- --run  [running]
        Run the unit tests
        in /work/app"
    `)
  })

  it('renders a diff card with hunks', () => {
    expect(show(renderToolCall(diffCall({ title: 'Edit src/greet.ts', diffs: [edit] }), plain))).toMatchInlineSnapshot(`
      "✎ Edit src/greet.ts  [running]
        /work/app/src/greet.ts (+2 -2)
        @@ -1,3 +1,3 @@
        -export function greet(name) {
        -  return "hi " + name
        +export function greet(name: string) {
        +  return \`hello \${name}\`
         }"
    `)
  })

  it('renders a new file and a missing final newline', () => {
    const view = diffCall({ title: 'Write notes.txt', diffs: [fileDiff('/work/app/notes.txt', null, 'one\ntwo')] })
    expect(show(renderToolCall(view, plain))).toMatchInlineSnapshot(`
      "✎ Write notes.txt  [running]
        /work/app/notes.txt (new file, +2)
        @@ -0,0 +1,2 @@
        +one
        +two
        \\ No newline at end of file"
    `)
  })

  it('shows the first line of a multi-line title', () => {
    const [headerLine] = renderToolCall(terminalCall({ title: "cat <<'EOF'\nhello\nEOF" }), plain)
    expect(headerLine).toBe("$ cat <<'EOF' … (+2 lines)  [running]")
  })

  it('clips long raw input', () => {
    const lines = renderToolCall(genericCall({ title: 't', rawInput: { text: 'x'.repeat(500) } }), { ...plain, maxInputChars: 20 })
    expect(lines[1]).toBe('  input {"text":"xxxxxxxxxxx…')
  })

  it('rejects a value that is not a card', () => {
    expect(() => renderToolCall({ card: 'chart', title: 'x' } as never, plain)).toThrow(UnknownCardError)
  })
})

describe('renderToolResult (plain text)', () => {
  it('renders a generic result with the result content and the call title', () => {
    const lines = renderToolResult(genericResult(), {
      ...plain,
      call: genericCall({ title: 'Read README.md', kind: 'read' }),
      result: {
        content: [
          { type: 'text', text: '# App\n\nA demo.' },
          { type: 'image', data: 'AA==', mimeType: 'image/png' },
        ],
        isError: false,
      },
    })
    expect(show(lines)).toMatchInlineSnapshot(`
      "≡ Read README.md  [done]
        # App

        A demo.
        [image image/png]"
    `)
  })

  it('renders a failed generic result', () => {
    const lines = renderToolResult(genericResult({ title: 'unknown tool: frobnicate' }), {
      ...plain,
      result: { content: [{ type: 'text', text: 'Tool "frobnicate" is not registered.' }], isError: true },
    })
    expect(show(lines)).toMatchInlineSnapshot(`
      "• unknown tool: frobnicate  [failed]
        Tool "frobnicate" is not registered."
    `)
  })

  it('renders a terminal result with its exit code and output tail', () => {
    const output = Array.from({ length: 25 }, (_, index) => `test ${index + 1} ok`).join('\n') + '\n1 failed\n'
    const lines = renderToolResult(terminalResult({ output, exitCode: 1, signal: null, timedOut: false }), {
      ...plain,
      call: terminalCall({ title: 'npm test' }),
      tailLines: 4,
    })
    expect(show(lines)).toMatchInlineSnapshot(`
      "$ npm test  [exit 1]
        … 22 earlier lines
        │ test 23 ok
        │ test 24 ok
        │ test 25 ok
        │ 1 failed"
    `)
  })

  it('takes the exit status from the card, not from marker-looking output', () => {
    const lines = renderToolResult(terminalResult({ output: 'done\n[exit code: 3]\n', exitCode: 0, signal: null, timedOut: false }), {
      ...plain,
      call: terminalCall({ title: 'make' }),
    })
    expect(lines[0]).toBe('$ make  [exit 0]')
  })

  it('renders signals, timeouts and an unknown exit status', () => {
    const call = terminalCall({ title: 'sleep 100' })
    expect(renderToolResult(terminalResult({ exitCode: null, signal: 'SIGKILL' }), { ...plain, call })[0]).toBe(
      '$ sleep 100  [killed by SIGKILL]',
    )
    expect(renderToolResult(terminalResult({ exitCode: null, signal: 'SIGTERM', timedOut: true }), { ...plain, call })[0]).toBe(
      '$ sleep 100  [timed out]',
    )
    expect(renderToolResult(terminalResult({ output: '' }), { ...plain, call })).toEqual(['$ sleep 100  [done]'])
    const failed = { content: [{ type: 'text' as const, text: 'spawn failed' }], isError: true }
    expect(renderToolResult(terminalResult(), { ...plain, call, result: failed })).toEqual([
      '$ sleep 100  [failed]',
      '  │ spawn failed',
    ])
  })

  it('renders a diff result', () => {
    const call = diffCall({ title: 'Edit src/greet.ts', diffs: [edit] })
    const lines = renderToolResult(diffResult({ diffs: [edit] }), { ...plain, call })
    expect(show(lines)).toMatchInlineSnapshot(`
      "✎ Edit src/greet.ts  [done]
        /work/app/src/greet.ts (+2 -2)
        @@ -1,3 +1,3 @@
        -export function greet(name) {
        -  return "hi " + name
        +export function greet(name: string) {
        +  return \`hello \${name}\`
         }"
    `)
  })

  it('caps long diffs and generic content', () => {
    const before = Array.from({ length: 40 }, (_, index) => `a${index}\n`).join('')
    const after = Array.from({ length: 40 }, (_, index) => `b${index}\n`).join('')
    const lines = renderToolResult(diffResult({ diffs: [fileDiff('/p/f', before, after)] }), { ...plain, maxDiffLines: 3 })
    expect(lines.slice(1)).toEqual(['  /p/f (+40 -40)', '  @@ -1,40 +1,40 @@', '  -a0', '  -a1', '  … 78 more diff lines'])
    const content = renderToolResult(genericResult({ content: [{ type: 'text', text: 'a\nb\nc' }] }), { ...plain, maxContentLines: 1 })
    expect(content).toEqual(['• result  [done]', '  a', '  … 2 more lines'])
  })

  it('neutralises escape sequences and control characters from untrusted text', () => {
    const output = '\u001b[31mred\u001b[0m\n\u001b]0;pwned\u0007title\nprogress 10%\rprogress 100%\nbell\u0007 \u202eevil\n'
    const lines = renderToolResult(terminalResult({ output, exitCode: 0 }), { ...plain, call: terminalCall({ title: 'x\u001b[2J' }) })
    expect(lines).toEqual(['$ x  [exit 0]', '  │ red', '  │ title', '  │ progress 100%', '  │ bell\uFFFD \uFFFDevil'])
    // oxlint-disable-next-line no-control-regex
    for (const line of lines) expect(line).not.toMatch(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/)
  })
})

describe('colour', () => {
  it('colours the pill, the diff and the output prefix only when asked', () => {
    const call = diffCall({ title: 'Edit', diffs: [fileDiff('/p/a', 'x\n', 'y\n')] })
    const coloured = renderToolCall(call, { color: true })
    expect(coloured.map((line) => JSON.stringify(line)).join('\n')).toMatchInlineSnapshot(`
      ""\\u001b[36m✎\\u001b[39m \\u001b[1mEdit\\u001b[22m  \\u001b[36m[running]\\u001b[39m"
      "  \\u001b[1m/p/a\\u001b[22m \\u001b[2m(+1 -1)\\u001b[22m"
      "  \\u001b[36m@@ -1,1 +1,1 @@\\u001b[39m"
      "  \\u001b[31m-x\\u001b[39m"
      "  \\u001b[32m+y\\u001b[39m""
    `)
    expect(renderToolCall(call, { color: false }).join('')).not.toContain('\u001b')
    const result = renderToolResult(terminalResult({ output: 'boom', exitCode: 2 }), { color: true, call: terminalCall({ title: 'make' }) })
    expect(result[0]).toBe('\u001b[36m$\u001b[39m \u001b[1mmake\u001b[22m  \u001b[31m[exit 2]\u001b[39m')
    expect(result[1]).toBe('  \u001b[2m│\u001b[22m boom')
    const ok = renderToolResult(terminalResult({ exitCode: 0 }), { color: true })
    expect(ok[0]).toContain('\u001b[32m[exit 0]\u001b[39m')
  })
})
