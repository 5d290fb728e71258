import { genericCall, genericResult } from '@dsh/tools-presentation'
import type {} from '@dsh/tools-registry' // types ctx.tools
import { defineTool } from '@dsh/tools-schema'
import type { Context } from 'cordis'

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu

/**
 * The `word_count` tool: a tool with an `output` schema. Its body returns a JSON value instead of content; the
 * value is validated against `output.schema` (a body that returns something else is `INVALID_TOOL_OUTPUT`, a bug
 * in the tool), `output.render` turns it into the text the model reads, and the validated value travels as the
 * result's `structuredContent`, where programmatic callers read it without parsing text (it is not persisted in the
 * session log). `output.presentationMeta` derives the replayable payload `presentResult` (typed) reads: the result's
 * `meta`.
 */
export const wordCountTool = defineTool({
  name: 'word_count',
  description: 'Count the words of a text and list the most frequent ones.',
  parameters: {
    text: { type: 'string', required: true, description: 'The text to count' },
    top: { type: 'integer', enum: [1, 2, 3, 4, 5], description: 'How many frequent words to list', default: 3 },
  },
  output: {
    schema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        words: { type: 'integer', required: true },
        characters: { type: 'integer', required: true },
        longest: { oneOf: [{ type: 'string' }, { type: 'null' }], required: true },
        frequent: {
          type: 'array',
          required: true,
          items: {
            type: 'object',
            additionalProperties: false,
            properties: { word: { type: 'string', required: true }, count: { type: 'integer', required: true } },
          },
        },
      },
    },
    render: (_args, value) =>
      `${value.words} words, ${value.characters} characters; longest: ${value.longest ?? '(none)'}; ` +
      `most frequent: ${value.frequent.map((entry) => `${entry.word} (${entry.count})`).join(', ') || '(none)'}`,
    // What the card needs on replay: the counts, not the longest word.
    presentationMeta: (_args, value) => ({ words: value.words, characters: value.characters, frequent: value.frequent }),
  },
  concurrencySafe: true,
  execute(args) {
    const words = (args.text.match(WORD) ?? []).map((word) => word.toLowerCase())
    const counts = new Map<string, number>()
    for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1)
    const frequent = [...counts]
      .sort(([a, countA], [b, countB]) => countB - countA || a.localeCompare(b))
      .slice(0, args.top ?? 3)
      .map(([word, count]) => ({ word, count }))
    const longest = words.reduce<string | null>((best, word) => (best === null || word.length > best.length ? word : best), null)
    return { words: words.length, characters: [...args.text].length, longest, frequent }
  },
  presentCall: (args) => genericCall({ title: `Count the words of a ${[...args.text].length}-character text`, kind: 'read' }),
  presentResult: (_args, result) => {
    // result.meta is typed from output.presentationMeta; a replayed log may hold an older shape, so check it.
    const value = result.meta
    if (value === undefined || !Array.isArray(value.frequent)) return undefined
    const table = value.frequent.map((entry) => `${String(entry.count).padStart(3)}  ${entry.word}`).join('\n')
    return genericResult({
      title: `${value.words} words, ${value.characters} characters`,
      content: [{ type: 'text', text: table }],
    })
  },
})

/** The plugin name. */
export const name = 'word-count-tool'
/** The plugin needs the registry. */
export const inject = ['tools']

/** Registers `word_count`. */
export function apply(ctx: Context): void {
  ctx.tools.register(wordCountTool)
}
