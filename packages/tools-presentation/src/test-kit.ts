// Generators the hardening tests share: hostile strings (terminal escapes, controls, Markdown) and hostile objects
// (proxies, throwing getters). Test-only: nothing in the package imports it.
import type { ContentBlock, FileDiff, FileLocation, ToolCallView, ToolResultView } from '@dsh/tools-core'
import fc from 'fast-check'

/** What an attacker puts in a string that a terminal or a Markdown renderer will see. */
const HOSTILE_PIECES = [
  // Terminal: CSI, OSC (title, hyperlink, OSC 52 clipboard), DCS/APC, nF, two-character ESC, 8-bit C1 forms.
  '\u001b',
  '\u001b[',
  '\u001b[2J',
  '\u001b[H',
  '\u001b[1;31m',
  '\u001b]52;c;cHduZWQ=\u0007',
  '\u001b]0;title\u001b\\',
  '\u001b]8;;https://evil.example\u001b\\',
  '\u009b2J',
  '\u009d52;c;eA==\u009c',
  '\u0090q\u009c',
  '\u001bPq',
  '\u001b_apc',
  '\u001b(0',
  '\u001b7',
  '\u0007',
  '\b',
  '\r',
  '\n',
  '\r\n',
  '\t',
  '\u0000',
  '\u007f',
  '\u0085',
  '\u009f',
  '\u202a',
  '\u202e',
  '\u2066',
  '\u2069',
  '\u200f',
  '\u061c',
  '\u2028',
  '\u2029',
  // Markdown: fences, headings, links, images, HTML, entities, emphasis, lists, quotes, breaks, indentation.
  '```',
  '````',
  '~~~',
  '`',
  '\n```\n',
  '\n# heading\n',
  '[x](https://evil.example)',
  '![x](https://evil.example/p.png)',
  '<img src=x onerror=alert(1)>',
  '&amp;',
  '*',
  '_',
  '\\',
  '|',
  '---',
  '===',
  '1. ',
  '> ',
  '    ',
  '\n\n',
]

const controlChar = fc.integer({ min: 0, max: 0x9f }).map((code) => String.fromCharCode(code))
const formatChar = fc.integer({ min: 0x2000, max: 0x206f }).map((code) => String.fromCharCode(code))

/** Arbitrary strings, heavy on escape sequences, control characters, bidi controls and Markdown syntax. */
export const hostileString: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      fc.constantFrom(...HOSTILE_PIECES),
      fc.string({ maxLength: 6 }),
      fc.string({ unit: 'binary', maxLength: 4 }),
      controlChar,
      formatChar,
    ),
    { maxLength: 10 },
  )
  .map((pieces) => pieces.join(''))

/** A revoked proxy: every operation on it throws a TypeError. */
export function revokedProxy(target: object = {}): object {
  const { proxy, revoke } = Proxy.revocable(target, {})
  revoke()
  return proxy
}

/** A proxy whose every trap throws (also `Array.isArray` sees an array when `target` is one). */
export function throwingProxy(target: object = {}): object {
  const boom = (): never => {
    throw new Error('trap \u001b]52;c;eA==\u0007')
  }
  return new Proxy(target, {
    get: boom,
    has: boom,
    ownKeys: boom,
    getOwnPropertyDescriptor: boom,
    getPrototypeOf: boom,
    apply: boom,
  })
}

/** An array of `length` holes (costs nothing to make; a naive copy would try to allocate them all). */
export function sparseArray(length: number): unknown[] {
  const array: unknown[] = []
  array.length = length
  return array
}

/** An object whose `key` is a getter that throws. */
export function throwingGetter(key: string, base: Record<string, unknown> = {}): object {
  return Object.defineProperty({ ...base }, key, {
    enumerable: true,
    get(): never {
      throw new Error(`getter ${key}`)
    },
  })
}

const VOCABULARY_KEYS = [
  'card',
  'title',
  'kind',
  'content',
  'locations',
  'rawInput',
  'diffs',
  'output',
  'signal',
  'exitCode',
  'timedOut',
  'description',
  'cwd',
  'name',
  'presentCall',
  'presentResult',
  'isError',
  'type',
  'text',
  'path',
]

/**
 * How to make a hostile value. fast-check inspects every value it generates (a proxy would throw at it), so the
 * arbitraries produce recipes and a property calls {@link materialize} on what it was given.
 */
export class Recipe {
  constructor(readonly make: () => unknown) {}
}

/** The value with every {@link Recipe} in it (inside plain objects and arrays too) made. */
export function materialize(value: unknown): unknown {
  if (value instanceof Recipe) return value.make()
  if (Array.isArray(value)) return value.map(materialize)
  if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, materialize(item)]))
  }
  return value
}

const recipe = (make: () => unknown): fc.Arbitrary<Recipe> => fc.constant(new Recipe(make))

/** Values that are not what they seem: proxies, throwing getters, a throwing `toString`, huge sparse arrays. */
export const hostileObject: fc.Arbitrary<unknown> = fc.oneof(
  recipe(() => revokedProxy()),
  recipe(() => revokedProxy([])),
  recipe(() => throwingProxy()),
  recipe(() => throwingProxy([])),
  fc.constantFrom(...VOCABULARY_KEYS).map((key) => new Recipe(() => throwingGetter(key, { card: 'generic', title: 't' }))),
  recipe(() => ({ toString: (): never => { throw new Error('toString') } })),
  recipe(() => sparseArray(2 ** 32 - 1)),
  recipe(() => {
    const rejected = Promise.reject(new Error('async presenter'))
    rejected.catch(() => {})
    return rejected
  }),
)

/** Anything at all, hostile objects included, also nested inside plain objects and arrays (see {@link materialize}). */
export const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.anything(),
  hostileObject,
  fc.dictionary(fc.constantFrom(...VOCABULARY_KEYS), fc.oneof(fc.anything(), hostileObject, hostileString)),
  fc.array(hostileObject, { maxLength: 3 }),
)

const text = hostileString

const annotations = fc.record(
  { audience: fc.subarray(['user', 'assistant'] as const), priority: fc.double({ min: 0, max: 1, noNaN: true }), lastModified: text },
  { requiredKeys: [] },
)

/** Well-formed content blocks of every type, with hostile strings in every string field. */
export const hostileBlock: fc.Arbitrary<ContentBlock> = fc.oneof(
  fc.record({ type: fc.constant('text' as const), text, annotations }, { requiredKeys: ['type', 'text'] }),
  fc.record({ type: fc.constantFrom('image' as const, 'audio' as const), data: text, mimeType: text }),
  fc.record(
    {
      type: fc.constant('resource_link' as const),
      uri: text,
      name: text,
      title: text,
      description: text,
      mimeType: text,
      size: fc.nat(),
    },
    { requiredKeys: ['type', 'uri', 'name'] },
  ),
  fc.record({
    type: fc.constant('resource' as const),
    resource: fc.record({ uri: text, text, mimeType: text }, { requiredKeys: ['uri', 'text'] }),
  }),
  fc.record({ type: fc.constant('resource' as const), resource: fc.record({ uri: text, blob: text }) }),
)

const location: fc.Arbitrary<FileLocation> = fc.record(
  { path: text, line: fc.integer({ min: 1, max: 100_000 }) },
  { requiredKeys: ['path'] },
)
const diff: fc.Arbitrary<FileDiff> = fc.record({ path: text, oldText: fc.option(text, { nil: null }), newText: text })
const blocks = fc.array(hostileBlock, { maxLength: 3 })
const diffs = fc.array(diff, { maxLength: 2 })
const locations = fc.array(location, { maxLength: 2 })
const kinds = ['read', 'edit', 'delete', 'move', 'search', 'execute', 'fetch', 'other'] as const

/** Well-formed call cards of every kind, hostile strings in every field. */
export const hostileCallView: fc.Arbitrary<ToolCallView> = fc.oneof(
  fc.record(
    {
      card: fc.constant('generic' as const),
      title: text,
      kind: fc.constantFrom(...kinds),
      rawInput: fc.dictionary(text, text, { maxKeys: 2 }),
      content: blocks,
      locations,
    },
    { requiredKeys: ['card', 'title'] },
  ),
  fc.record(
    { card: fc.constant('terminal' as const), title: text, description: text, cwd: text },
    { requiredKeys: ['card', 'title'] },
  ),
  fc.record({ card: fc.constant('diff' as const), title: text, diffs, locations }, { requiredKeys: ['card', 'title', 'diffs'] }),
  fc.record(
    { card: fc.constant('code' as const), title: text, language: fc.constantFrom('typescript' as const, 'javascript' as const), code: text, description: text },
    { requiredKeys: ['card', 'title', 'language', 'code'] },
  ),
)

/** Well-formed result cards of every kind, hostile strings in every field. */
export const hostileResultView: fc.Arbitrary<ToolResultView> = fc.oneof(
  fc.record({ card: fc.constant('generic' as const), title: text, content: blocks }, { requiredKeys: ['card'] }),
  fc.record(
    {
      card: fc.constant('terminal' as const),
      title: text,
      output: text,
      exitCode: fc.option(fc.integer({ min: -255, max: 255 }), { nil: null }),
      signal: fc.option(text, { nil: null }),
      timedOut: fc.boolean(),
    },
    { requiredKeys: ['card'] },
  ),
  fc.record({ card: fc.constant('diff' as const), title: text, diffs }, { requiredKeys: ['card', 'diffs'] }),
  fc.record(
    {
      card: fc.constant('code' as const),
      title: text,
      status: fc.constantFrom('completed' as const, 'error' as const, 'timeout' as const, 'memory' as const, 'aborted' as const),
      error: text,
      durationMs: fc.nat(),
      logs: text,
      value: text,
      subCalls: fc.array(fc.record({ callId: text, name: text, isError: fc.boolean(), code: text }, { requiredKeys: ['callId', 'name', 'isError'] }), {
        maxLength: 3,
      }),
    },
    { requiredKeys: ['card', 'status', 'subCalls'] },
  ),
)

/** A result's content, hostile strings in every block. */
export const hostileContent: fc.Arbitrary<ContentBlock[]> = blocks
