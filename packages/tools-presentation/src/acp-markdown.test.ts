import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { formatConsoleBlock, toAcpToolCall, toAcpToolCallUpdate } from './acp-mapping.js'
import { genericCall, genericResult, terminalCall, terminalResult } from './card-builders.js'
import { InvalidCardError } from './invalid-card-error.js'
import { fencedBlock, markdownCode, markdownLine, markdownText } from './markdown-text.js'
import { relativizeTitle } from './relativize-title.js'
import { hostileResultView, hostileString, revokedProxy, throwingGetter } from './test-kit.js'

const cwd = '/work/app'
const LINE_ENDING = /\r\n|\r|\n/

/**
 * A CommonMark reading of a fenced code block at the start of `markdown`: the opening fence, the first line that
 * closes it (a run of at least as many backticks, up to three spaces of indentation, nothing else), what lies
 * between, and the lines after it.
 */
function parseFencedBlock(markdown: string): { info: string; content: string; rest: string[] } {
  const lines = markdown.split(LINE_ENDING)
  const open = /^(`{3,})([^`]*)$/.exec(lines[0] ?? '')
  if (open === null) throw new Error(`does not open with a backtick fence: ${JSON.stringify(lines[0])}`)
  const closing = new RegExp(`^ {0,3}\`{${open[1]!.length},}[ \\t]*$`)
  const close = lines.findIndex((line, index) => index > 0 && closing.test(line))
  if (close === -1) throw new Error('the fence is never closed')
  return { info: open[2]!, content: lines.slice(1, close).join('\n'), rest: lines.slice(close + 1) }
}

/** What CommonMark reads back from a fenced block holding `text`: line endings as `\n`, without the final one. */
function asFenceContent(text: string): string {
  return text.replace(/\r\n|\r/g, '\n').replace(/\n$/, '')
}

/**
 * Checks that one line of Markdown is inert: it starts no block, and every character that could open inline
 * structure is backslash-escaped. Returns the text a renderer shows (the escapes removed).
 */
function inertText(line: string): string {
  expect(line).not.toMatch(/^[ \t]/)
  expect(line).not.toMatch(/^(?:[#>+=-]|\d+[.)])/)
  let shown = ''
  for (let index = 0; index < line.length; index += 1) {
    const char = line[index]!
    if (char === '\\') {
      const next = line[index + 1] ?? ''
      expect(next).toMatch(/^[!-/:-@[-`{-~]$/)
      shown += next
      index += 1
      continue
    }
    expect(char).not.toMatch(/[`*_[\]<>&~|]/)
    shown += char
  }
  return shown
}

function expectedStatus(exit: { exitCode?: number | null; signal?: string | null; timedOut?: boolean }): string | undefined {
  const parts: string[] = []
  if (exit.timedOut === true) parts.push('Timed out')
  if (exit.signal === '') parts.push('killed by a signal')
  else if (typeof exit.signal === 'string') parts.push(`killed by signal ${exit.signal.split(LINE_ENDING).join(' ')}`)
  else if (typeof exit.exitCode === 'number') parts.push(`exited with code ${exit.exitCode}`)
  if (parts.length === 0) return undefined
  const sentence = parts.join('; ')
  return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`
}

/**
 * The text a CommonMark renderer shows for the status line: inert words, optionally one inline code span (read as
 * CommonMark does: the first later run of exactly as many backticks closes it; one space is stripped from each end
 * when both are spaces and not all is), then a final `.`.
 */
function shownStatus(line: string): string {
  const open = line.indexOf('`')
  if (open === -1) return inertText(line)
  const prefix = inertText(line.slice(0, open))
  const delimiter = /^`+/.exec(line.slice(open))![0]
  const body = line.slice(open + delimiter.length)
  const close = [...body.matchAll(/`+/g)].find((run) => run[0].length === delimiter.length)
  if (close === undefined) throw new Error('the code span is never closed')
  let code = body.slice(0, close.index)
  expect(body.slice(close.index + delimiter.length)).toBe('.')
  if (code.startsWith(' ') && code.endsWith(' ') && /[^ ]/.test(code)) code = code.slice(1, -1)
  return `${prefix}${code}.`
}

function consoleText(update: ReturnType<typeof toAcpToolCallUpdate>): string {
  const item = update.content?.[0]
  if (item?.type !== 'content' || item.content.type !== 'text') throw new Error('no console text')
  return item.content.text
}

describe('nothing from a tool breaks out of the ACP console fence', () => {
  it('a signal name cannot put Markdown outside the console fence', () => {
    const signal = 'SIGTERM\n```\n\n# Owned\n\n![x](https://evil.example/p.png) <img src=x>'
    const text = formatConsoleBlock('out\n', { exitCode: null, signal })
    const block = parseFencedBlock(text)
    expect(block).toMatchObject({ info: 'console', content: 'out' })
    expect(block.rest).toHaveLength(2)
    expect(block.rest[0]).toBe('')
    expect(block.rest[1]).toBe('Killed by signal ````SIGTERM ```  # Owned  ![x](https://evil.example/p.png) <img src=x>````.')
    expect(shownStatus(block.rest[1]!)).toBe(expectedStatus({ signal }))
    expect(formatConsoleBlock('', { signal: 'SIGKILL', timedOut: true })).toBe('```console\n```\n\nTimed out; killed by signal SIGKILL.')
    expect(formatConsoleBlock('', { signal: 'www.evil.example' })).toBe('```console\n```\n\nKilled by signal `www.evil.example`.')
  })

  it('output holding fences of any length stays inside one block', () => {
    const output = '```\nnot code\n````\n`````` \n   ```\n~~~\n'
    const block = parseFencedBlock(formatConsoleBlock(output, { exitCode: 0 }))
    expect(block.content).toBe(asFenceContent(output))
    expect(block.rest).toEqual(['', 'Exited with code 0.'])
  })

  it('holds for any output, signal, exit code and title (property)', () => {
    fc.assert(
      fc.property(hostileResultView, fc.boolean(), (view, openedTerminal) => {
        const call = openedTerminal ? terminalCall({ title: 'run' }) : genericCall({ title: 'run' })
        const result = { content: [{ type: 'text' as const, text: 'fallback' }], isError: false }
        const update = toAcpToolCallUpdate({ toolCallId: 'c', call, view, result }, { cwd, terminalOutput: !openedTerminal })
        if (view.title !== undefined) {
          expect(inertText(update.title!)).toBe(markdownShown(relativizeTitle(view.title, cwd)))
        }
        if (view.card !== 'terminal') return
        const block = parseFencedBlock(consoleText(update))
        expect(block.info).toBe('console')
        expect(block.content).toBe(asFenceContent(view.output ?? 'fallback'))
        const status = expectedStatus(view)
        if (status === undefined) expect(block.rest).toEqual([])
        else {
          expect(block.rest).toHaveLength(2)
          expect(block.rest[0]).toBe('')
          expect(shownStatus(block.rest[1]!)).toBe(status)
        }
      }),
      { numRuns: 500 },
    )
  })
})

/** What a title shows: one line, leading indentation dropped. */
function markdownShown(text: string): string {
  return text.split(LINE_ENDING).join(' ').replace(/^[ \t]+/, '')
}

describe('titles and labels outside fences cannot inject Markdown structure', () => {
  it('escapes links, images, HTML, code, emphasis, headings and lists in a title', () => {
    const view = genericCall({ title: '# Read [notes](https://evil.example) ![p](https://evil.example/p.png) <b>`x`</b> *y* ~~z~~ &amp; /work/app/a_b.ts' })
    const update = toAcpToolCall({ toolCallId: 'c', view }, { cwd })
    expect(update.title).toBe(
      '\\# Read \\[notes\\](https://evil.example) !\\[p\\](https://evil.example/p.png) \\<b\\>\\`x\\`\\</b\\> \\*y\\* \\~\\~z\\~\\~ \\&amp; a\\_b.ts',
    )
    expect(toAcpToolCall({ toolCallId: 'c', view: genericCall({ title: '1. one\n\n- two' }) }, { cwd }).title).toBe('1\\. one  - two')
    expect(toAcpToolCall({ toolCallId: 'c', view: genericCall({ title: 'Read src/a.ts (12 lines)' }) }, { cwd }).title).toBe(
      'Read src/a.ts (12 lines)',
    )
  })

  it('a terminal card description stays words: each line escaped, no block can start', () => {
    const view = terminalCall({ title: 'ls', description: 'List\n===\n    code\n> quote\n<script>alert(1)</script>' })
    const update = toAcpToolCall({ toolCallId: 'c', view }, { cwd })
    expect(update.content).toEqual([
      { type: 'content', content: { type: 'text', text: 'List\n\\===\ncode\n\\> quote\n\\<script\\>alert(1)\\</script\\>' } },
    ])
  })

  it('holds for any title and description (property)', () => {
    fc.assert(
      fc.property(hostileString, hostileString, (title, description) => {
        const update = toAcpToolCall({ toolCallId: 'c', view: terminalCall({ title, description }) }, { cwd })
        expect(inertText(update.title)).toBe(markdownShown(relativizeTitle(title, cwd)))
        const item = update.content?.[0]
        if (description.length === 0) {
          expect(item).toBeUndefined()
          return
        }
        if (item?.type !== 'content' || item.content.type !== 'text') throw new Error('no description')
        const lines = item.content.text.split('\n')
        expect(lines.map(inertText)).toEqual(description.split(LINE_ENDING).map((line) => line.replace(/^[ \t]+/, '')))
      }),
      { numRuns: 500 },
    )
  })
})

describe('markdown helpers', () => {
  it('fencedBlock picks a fence longer than any backtick run', () => {
    expect(fencedBlock('a ``` b ```` c', 'console')).toBe('`````console\na ``` b ```` c\n`````')
    expect(fencedBlock('', 'console')).toBe('```console\n```')
    expect(parseFencedBlock(fencedBlock('x\r\n', 'txt'))).toEqual({ info: 'txt', content: 'x', rest: [] })
  })

  it('markdownCode keeps any text literal in one code span', () => {
    expect(markdownCode('a`b')).toBe('``a`b``')
    expect(markdownCode('`x`')).toBe('`` `x` ``')
    expect(markdownCode(' x ')).toBe('`  x  `')
    expect(markdownCode('')).toBe('` `')
    expect(markdownCode('a\n\nb')).toBe('`a  b`')
  })

  it('markdownText and markdownLine escape only what could make structure', () => {
    expect(markdownText('a\\b\n  + item\n12) x')).toBe('a\\\\b\n\\+ item\n12\\) x')
    expect(markdownLine('echo $HOME; cd ..\r\nexit')).toBe('echo $HOME; cd .. exit')
  })
})

describe('the ACP mapping reads hostile cards and results safely', () => {
  it('a card whose getter throws is a coded InvalidCardError, not a raw TypeError', () => {
    const view = throwingGetter('description', { card: 'terminal', title: 'ls' })
    expect(() => toAcpToolCall({ toolCallId: 'c', view: view as never }, { cwd })).toThrow(InvalidCardError)
  })

  it('a result whose content is a revoked proxy becomes a note', () => {
    const update = toAcpToolCallUpdate(
      { toolCallId: 'c', call: genericCall({ title: 't' }), view: genericResult(), result: { content: revokedProxy([]) } as never },
      { cwd },
    )
    expect(update.status).toBe('completed')
    expect(update.content).toEqual([
      { type: 'content', content: { type: 'text', text: expect.stringMatching(/^\[the result cannot be read: /) } },
    ])
    expect(() =>
      toAcpToolCallUpdate({ toolCallId: 'c', call: genericCall({ title: 't' }), view: terminalResult(), result: revokedProxy() as never }, { cwd }),
    ).not.toThrow()
  })
})
