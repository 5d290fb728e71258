import { describe, expect, it } from 'vitest'
import { fencedBlocks, importedPackages, parseAttributes } from './markdown.mjs'

describe('fencedBlocks', () => {
  it('reads the language, the attributes, the body and the first body line of each block', () => {
    const text = ['# Doc', '', '```sh run', 'npm init -y', '```', 'prose', '```ts file=src/main.ts', "console.log('hi')", '```'].join('\n')
    expect(fencedBlocks(text)).toEqual([
      { lang: 'sh', attributes: { run: true }, body: 'npm init -y', line: 4 },
      { lang: 'ts', attributes: { file: 'src/main.ts' }, body: "console.log('hi')", line: 8 },
    ])
  })

  it('removes the indentation of a fence inside a list item from its body', () => {
    const text = ['- step', '  ```ts file=a.ts', '  const a = 1', '    const b = 2', '  ```'].join('\n')
    expect(fencedBlocks(text)[0]?.body).toBe('const a = 1\n  const b = 2')
  })

  it('keeps a shorter fence inside a longer one as text', () => {
    const text = ['````md', '```ts', 'x', '```', '````'].join('\n')
    expect(fencedBlocks(text)).toEqual([{ lang: 'md', attributes: {}, body: '```ts\nx\n```', line: 2 }])
  })
})

describe('parseAttributes', () => {
  it('reads flags and key=value pairs, quotes removed', () => {
    expect(parseAttributes(' run file="src/a.ts" ignore-check')).toEqual({ run: true, file: 'src/a.ts', 'ignore-check': true })
    expect(parseAttributes(" file='src/x.ts' output")).toEqual({ file: 'src/x.ts', output: true })
  })
})

describe('importedPackages', () => {
  it('names packages of static, type-only, side-effect and dynamic imports, not relative or node: ones', () => {
    const source = [
      "import { a } from '@dsh/tools-core/sub'",
      "import type {} from 'cordis'",
      "import 'side-effect'",
      "const bash = await import('@dsh/tool-bash')",
      "import { b } from './b.js'",
      "import { readFile } from 'node:fs/promises'",
      "export { c } from 'lodash/fp'",
    ].join('\n')
    expect([...importedPackages(source)].sort()).toEqual(['@dsh/tool-bash', '@dsh/tools-core', 'cordis', 'lodash', 'side-effect'])
  })
})
