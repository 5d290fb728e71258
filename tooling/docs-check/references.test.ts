import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { anchorsOf, headingSlug, referenceProblems } from './references.mjs'

const root = mkdtempSync(join(tmpdir(), 'dsh-references-'))
mkdirSync(join(root, 'docs/reference'), { recursive: true })
mkdirSync(join(root, 'packages/tools-core/src'), { recursive: true })
writeFileSync(join(root, 'packages/tools-core/src/index.ts'), '')
writeFileSync(join(root, 'docs/reference/tools-core.md'), '# tools-core\n\n## Errors: `DshError`\n\n## Errors: `DshError`\n')
const page = join(root, 'docs/guide.md')
afterAll(() => rmSync(root, { recursive: true, force: true }))

const problems = (text: string) => referenceProblems(page, text, root)

describe('headingSlug and anchorsOf', () => {
  it("make GitHub's anchors: punctuation and code marks dropped, spaces to dashes, repeats numbered", () => {
    expect(headingSlug('Serving a registry: `@dsh/tools-mcp/server`')).toBe('serving-a-registry-dshtools-mcpserver')
    expect(headingSlug('1. What `execute()` returns')).toBe('1-what-execute-returns')
    expect([...anchorsOf('# A b\n\n```md\n# not a heading\n```\n## A b\n')]).toEqual(['a-b', 'a-b-1'])
  })
})

describe('referenceProblems', () => {
  it('accepts links, anchors and code paths that exist, external links and patterns', () => {
    const text = [
      '# Guide',
      'See [core](reference/tools-core.md), [its errors](reference/tools-core.md#errors-dsherror-1), [above](#guide),',
      '[the site](https://example.com/x.md), `packages/tools-core/src/index.ts`, `packages/<name>/README.md`, `src/x.ts`.',
    ].join('\n')
    expect(problems(text)).toEqual([])
  })

  it('names a missing file, a missing anchor, a missing code path and a link out of the repository, by line', () => {
    const text = [
      '# Guide',
      '[gone](reference/tools-gone.md) and [bad anchor](reference/tools-core.md#nope)',
      'the file `docs/reference/tools-gone.md` and [up](../../outside.md)',
    ].join('\n')
    expect(problems(text)).toEqual([
      '2: the link reference/tools-gone.md names docs/reference/tools-gone.md, which is not in the repository',
      '2: the link reference/tools-core.md#nope: docs/reference/tools-core.md has no heading with the anchor #nope',
      '3: the link ../../outside.md leaves the repository',
      '3: `docs/reference/tools-gone.md` is not a path in the repository',
    ])
  })

  it('refuses citations of documents users do not have, outside code blocks only', () => {
    const text = ['# Guide', 'As user guide 003 says, and the seeds, and DESIGN.md.', '```text', 'user guide 003', '```', 'Put ../shared/conformance beside it.'].join('\n')
    expect(problems(text)).toEqual([
      '2: "user guide 003" cites a specification document (not in the repository); state the fact, or link to a page of the repository',
      '2: "the seeds" cites the specification documents (not in the repository); state the fact, or link to a page of the repository',
      '2: "DESIGN.md" cites a design note of the authors (not in the repository); state the fact, or link to a page of the repository',
    ])
  })

  it("accepts the paths a page declares as its worked example's files, and only those", () => {
    const text = ['<!-- not-in-repository: packages/tool-files -->', '`packages/tool-files` and `packages/tool-other`'].join('\n')
    expect(problems(text)).toEqual(['2: `packages/tool-other` is not a path in the repository'])
  })
})
