import { describe, expect, it } from 'vitest'
import { installProblems, namedOnInstallLines } from './install-lines.mjs'
import { fencedBlocks } from './markdown.mjs'

const rule = {
  cordis: 'cordis@4.0.0-rc.10',
  installLine: 'npm install ./tarballs/*.tgz cordis@4.0.0-rc.10',
  packageNames: ['@dsh/tools-core', '@dsh/tool-bash', '@dsh/tools-registry'],
}
const doc = (install: string, source: string) => fencedBlocks(['```sh', install, '```', '', '```ts', source, '```'].join('\n'))
const bashExample = "import { LocalBashTools } from '@dsh/tool-bash'\nimport { ToolRegistry } from '@dsh/tools-registry'\nimport { Context } from 'cordis'"

describe('installProblems', () => {
  it('accepts a line that names every imported package and the working cordis', () => {
    expect(installProblems(doc('npm install @dsh/tool-bash @dsh/tools-registry cordis@4.0.0-rc.10', bashExample), rule)).toEqual([])
  })

  it('rejects a bare cordis (it installs 3.x), as the tool-bash README had it', () => {
    expect(installProblems(doc('npm install @dsh/tool-bash @dsh/tools-registry cordis', bashExample), rule)).toEqual([
      'an install line names cordis; it must be cordis@4.0.0-rc.10 (a bare cordis installs 3.x)',
      'its examples import cordis, but no `npm install` line of a sh block names cordis@4.0.0-rc.10',
    ])
  })

  it('rejects a line that leaves out an imported package', () => {
    expect(installProblems(doc('npm install @dsh/tool-bash cordis@4.0.0-rc.10', bashExample), rule)).toEqual([
      'its examples import @dsh/tools-registry, but no `npm install` line of a sh block names it',
    ])
  })

  it('takes the tarball glob as naming every package, and only in the spelling pack:all prints', () => {
    expect(installProblems(doc('npm install ./tarballs/*.tgz cordis@4.0.0-rc.10', bashExample), rule)).toEqual([])
    expect(installProblems(doc('npm install ./tarballs/dsh-tool-bash-0.1.0.tgz ./tarballs/dsh-tools-registry-0.1.0.tgz cordis@4.0.0-rc.10', bashExample), rule)).toContain(
      '`npm install ./tarballs/dsh-tool-bash-0.1.0.tgz ./tarballs/dsh-tools-registry-0.1.0.tgz cordis@4.0.0-rc.10` must be `npm install ./tarballs/*.tgz cordis@4.0.0-rc.10`',
    )
  })

  it('reads install lines only from shell blocks', () => {
    const blocks = fencedBlocks(['```text', 'npm install @dsh/tools-core', '```', '```ts', "import { DshError } from '@dsh/tools-core'", '```'].join('\n'))
    expect(installProblems(blocks, rule)).toEqual(['its examples import @dsh/tools-core, but no `npm install` line of a sh block names it'])
  })
})

describe('namedOnInstallLines', () => {
  it('skips flags and comments, and names a versioned @dsh package by its name too', () => {
    const blocks = fencedBlocks(['```sh', 'npm install --save-dev @dsh/tools-core@0.1.0 # not @dsh/tool-bash', '```'].join('\n'))
    expect([...namedOnInstallLines(blocks, rule.packageNames)].sort()).toEqual(['@dsh/tools-core', '@dsh/tools-core@0.1.0'])
  })
})
