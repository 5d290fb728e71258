import { createToolContext, createToolExecution, expectCleanUnload } from '@dsh/tools-testing'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as wordCountPlugin from './word-count-tool.js'

const { wordCountTool } = wordCountPlugin

function exec(args: unknown) {
  return createToolExecution({ name: 'word_count', arguments: args })
}

describe('word_count', () => {
  it('returns the value as structuredContent, the card payload as meta and the rendered text as content', async () => {
    await using t = await createToolContext({ plugins: [wordCountPlugin] })
    const result = await t.tools.execute({ callId: 'c1', name: 'word_count', arguments: { text: 'A rose is a rose is a rose.', top: 2 } })
    expect(result).toEqual({
      callId: 'c1',
      isError: false,
      content: [{ type: 'text', text: '8 words, 27 characters; longest: rose; most frequent: a (3), rose (3)' }],
      meta: { words: 8, characters: 27, frequent: [{ word: 'a', count: 3 }, { word: 'rose', count: 3 }] },
      structuredContent: { words: 8, characters: 27, longest: 'rose', frequent: [{ word: 'a', count: 3 }, { word: 'rose', count: 3 }] },
    })
  })

  it('handles a text without words', async () => {
    const value = await wordCountTool.invoke({ text: ' … ' }, exec({ text: ' … ' }))
    expect(value).toEqual({ words: 0, characters: 3, longest: null, frequent: [] })
  })

  it('presents the result from its typed meta, and falls back when a replayed meta does not match', () => {
    const meta = { words: 2, characters: 7, frequent: [{ word: 'hello', count: 1 }] }
    expect(wordCountTool.presentResult?.({ text: 'hello x' }, { content: [], isError: false, meta })).toEqual({
      card: 'generic',
      title: '2 words, 7 characters',
      content: [{ type: 'text', text: '  1  hello' }],
    })
    expect(wordCountTool.presentResult?.({ text: 'hello x' }, { content: [], isError: false, meta: { words: 'two' } })).toBeUndefined()
  })

  it('counts consistently for every text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.constantFrom(1 as const, 2 as const, 3 as const, 4 as const, 5 as const), async (text, top) => {
        const value = await wordCountTool.invoke({ text, top }, exec({ text, top }))
        expect(value.characters).toBe([...text].length)
        expect(value.frequent.length).toBeLessThanOrEqual(top)
        expect(value.frequent.reduce((sum, entry) => sum + entry.count, 0)).toBeLessThanOrEqual(value.words)
        expect(value.longest === null).toBe(value.words === 0)
        const counts = value.frequent.map((entry) => entry.count)
        expect(counts).toEqual([...counts].sort((a, b) => b - a))
      }),
    )
  })

  it('leaves nothing behind when the plugin is unloaded', async () => {
    const report = await expectCleanUnload(wordCountPlugin)
    expect(report.footprint.tools).toEqual(['word_count'])
  })
})
