// Runs `changeset version` in a temporary copy of the workspace's manifests with one changeset at a time and
// checks which packages it bumps: the changed package, and only the dependents changesets' rules name.
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '..', '..', '..')
const changeset = join(import.meta.dirname, '..', 'node_modules/.bin/changeset')

interface Manifest {
  name: string
  version: string
  private?: boolean
  dependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
}

function manifestPaths(): string[] {
  const folders = ['packages', 'examples', 'tooling'].flatMap((base) =>
    existsSync(join(root, base)) ? readdirSync(join(root, base)).map((name) => join(base, name)) : [],
  )
  return [...folders, 'bench'].map((folder) => join(folder, 'package.json')).filter((file) => existsSync(join(root, file)))
}

let copies: string[] = []
afterEach(() => {
  for (const copy of copies) rmSync(copy, { recursive: true, force: true })
  copies = []
})

/** Versions every published package after `changeset version` with this one changeset, plus the changelogs. */
function version(bumps: Record<string, 'patch' | 'minor' | 'major'>): { before: Map<string, Manifest>; after: Map<string, Manifest>; changelogs: Map<string, string> } {
  const copy = mkdtempSync(join(tmpdir(), 'dsh-release-'))
  copies.push(copy)
  for (const file of ['package.json', 'pnpm-workspace.yaml', '.changeset/config.json', ...manifestPaths()]) {
    mkdirSync(dirname(join(copy, file)), { recursive: true })
    cpSync(join(root, file), join(copy, file))
  }
  const frontmatter = Object.entries(bumps).map(([name, bump]) => `'${name}': ${bump}`).join('\n')
  writeFileSync(join(copy, '.changeset', 'only-change.md'), `---\n${frontmatter}\n---\n\nThe change under test.\n`)
  const read = () =>
    new Map(
      manifestPaths()
        .map((file) => JSON.parse(readFileSync(join(copy, file), 'utf8')) as Manifest)
        .filter((manifest) => !manifest.private)
        .map((manifest) => [manifest.name, manifest]),
    )
  const before = read()
  execFileSync(changeset, ['version'], { cwd: copy, stdio: 'pipe' })
  const after = read()
  const changelogs = new Map<string, string>()
  for (const file of manifestPaths()) {
    const log = join(copy, dirname(file), 'CHANGELOG.md')
    if (existsSync(log)) changelogs.set((JSON.parse(readFileSync(join(copy, file), 'utf8')) as Manifest).name, readFileSync(log, 'utf8'))
  }
  return { before, after, changelogs }
}

const bumped = (before: Map<string, Manifest>, after: Map<string, Manifest>) =>
  Object.fromEntries([...after].filter(([name, manifest]) => before.get(name)?.version !== manifest.version).map(([name, manifest]) => [name, manifest.version]))

describe('changeset version bumps packages independently', () => {
  it('a patch to tools-core bumps only tools-core: its dependents still accept it', () => {
    const { before, after, changelogs } = version({ '@dsh/tools-core': 'patch' })
    expect(bumped(before, after)).toEqual({ '@dsh/tools-core': '0.1.1' })
    expect(changelogs.get('@dsh/tools-core')).toContain('## 0.1.1\n\n### Patch Changes\n\n- ')
    expect(changelogs.get('@dsh/tools-core')).toContain('The change under test.')
    expect([...changelogs.keys()]).toEqual(['@dsh/tools-core'])
  })

  it('a minor to tools-presentation bumps it, and patches exactly the packages that depend on it', () => {
    const { before, after, changelogs } = version({ '@dsh/tools-presentation': 'minor' })
    const dependents = [...before.values()].filter((manifest) => manifest.dependencies?.['@dsh/tools-presentation'] !== undefined)
    expect(bumped(before, after)).toEqual({
      '@dsh/tools-presentation': '0.2.0',
      ...Object.fromEntries(dependents.map((manifest) => [manifest.name, '0.1.1'])),
    })
    for (const manifest of dependents) {
      expect(changelogs.get(manifest.name)).toContain('- Updated dependencies')
      expect(changelogs.get(manifest.name)).toContain('@dsh/tools-presentation@0.2.0')
    }
    // The workspace protocol stays in the manifest; pnpm publish turns it into a range.
    for (const manifest of dependents) expect(after.get(manifest.name)?.dependencies?.['@dsh/tools-presentation']).toBe('workspace:^')
  })

  it('a minor to the registry (0.x) leaves its ^0.1.0 peer range, so changesets bumps every peer dependent to a major', () => {
    const { before, after } = version({ '@dsh/tools-registry': 'minor' })
    const peers = [...before.values()].filter((manifest) => manifest.peerDependencies?.['@dsh/tools-registry'] !== undefined)
    expect(peers.length).toBeGreaterThan(0)
    expect(bumped(before, after)).toEqual({
      '@dsh/tools-registry': '0.2.0',
      ...Object.fromEntries(peers.map((manifest) => [manifest.name, '1.0.0'])),
    })
  })

  it('a change to a leaf package bumps nothing else', () => {
    const leaves = [...version({}).before.values()].filter(
      (candidate, _index, all) =>
        !all.some((manifest) => manifest.dependencies?.[candidate.name] !== undefined || manifest.peerDependencies?.[candidate.name] !== undefined),
    )
    expect(leaves.length).toBeGreaterThan(0)
    for (const leaf of leaves) {
      const { before, after } = version({ [leaf.name]: 'minor' })
      expect(bumped(before, after)).toEqual({ [leaf.name]: '0.2.0' })
    }
  })
})
