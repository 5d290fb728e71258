import { readFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { BashRunMeta } from './bash-tool-meta.js'
import { BASH_TOOLS_DEFAULTS } from './bash-tools-config.js'
import { LOCAL_BASH_DEFAULTS, resolveLocalBashConfig } from './local-bash-config.js'
import { loadTools, useScratch } from './test-support.js'

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
const { scratch } = useScratch('tool-bash-readme-')

interface Example {
  readonly label: string
  readonly args: unknown
  readonly text: string
}

const examples: Example[] = [
  ...readme.matchAll(/^\*\*(\w+)\*\*[^\n]*?arguments `(\{.*\})`:\n\n```text\n([\s\S]*?)\n```/gm),
].map((match) => ({ label: match[1] as string, args: JSON.parse(match[2] as string) as unknown, text: match[3] as string }))

describe('README', () => {
  it('shows the model-facing text for success, failure, timeout and truncation', () => {
    expect(examples.map((example) => example.label)).toEqual(['Success', 'Failure', 'Timeout', 'Truncation'])
  })

  it('each example is what the tool really returns', async () => {
    await using loaded = await loadTools({ executor: { cwd: scratch, tempDir: scratch, outputWindowBytes: 80, killGraceMs: 2_000 } })
    for (const example of examples) {
      const result = await loaded.call('bash', example.args)
      expect(result.isError, example.label).toBe(false)
      const spill = (result.meta as BashRunMeta).stdout.spillPath
      const text = loaded.text(result)
      expect(spill === null ? text : text.replace(dirname(spill), '/tmp/dsh-bash-XXXXXX'), example.label).toBe(example.text)
    }
  })

  it('lists every configuration key with its default', () => {
    const rows = new Map(
      [...readme.matchAll(/^\| `(\w+)` \| (.+?) \|/gm)].map((match) => [match[1] as string, match[2] as string]),
    )
    const executorKeys = Object.keys(resolveLocalBashConfig({}))
    const toolKeys = Object.keys(BASH_TOOLS_DEFAULTS)
    expect([...rows.keys()].sort()).toEqual([...executorKeys, ...toolKeys].sort())
    for (const [key, value] of Object.entries({ ...LOCAL_BASH_DEFAULTS, ...BASH_TOOLS_DEFAULTS })) {
      expect(rows.get(key), key).toBe(`\`${String(value)}\``)
    }
  })
})
