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

/** The version semver gives `version` after a `kind` bump (what changesets writes). */
function bump(version: string, kind: 'patch' | 'minor' | 'major'): string {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version)
  if (match === null) throw new Error(`not a plain x.y.z version: ${version}`)
  const [major, minor, patch] = match.slice(1).map(Number) as [number, number, number]
  if (kind === 'major') return `${major + 1}.0.0`
  if (kind === 'minor') return `${major}.${minor + 1}.0`
  return `${major}.${minor}.${patch + 1}`
}

const versionOf = (manifests: Map<string, Manifest>, name: string): string => {
  const manifest = manifests.get(name)
  if (manifest === undefined) throw new Error(`${name} is not a published package of the workspace`)
  return manifest.version
}

const bumped = (before: Map<string, Manifest>, after: Map<string, Manifest>) =>
  Object.fromEntries([...after].filter(([name, manifest]) => before.get(name)?.version !== manifest.version).map(([name, manifest]) => [name, manifest.version]))

describe('the expected versions', () => {
  it('follow semver from any current version', () => {
    expect([bump('0.1.0', 'patch'), bump('0.1.0', 'minor'), bump('0.1.0', 'major')]).toEqual(['0.1.1', '0.2.0', '1.0.0'])
    expect([bump('2.9.9', 'patch'), bump('2.9.9', 'minor'), bump('2.9.9', 'major')]).toEqual(['2.9.10', '2.10.0', '3.0.0'])
    expect(() => bump('1.0.0-rc.1', 'patch')).toThrow('not a plain x.y.z version')
  })
})

describe('changeset version bumps packages independently', () => {
  it('a patch to tools-core bumps only tools-core: its dependents still accept it', () => {
    const { before, after, changelogs } = version({ '@dsh/tools-core': 'patch' })
    const next = bump(versionOf(before, '@dsh/tools-core'), 'patch')
    expect(bumped(before, after)).toEqual({ '@dsh/tools-core': next })
    expect(changelogs.get('@dsh/tools-core')).toContain(`## ${next}\n\n### Patch Changes\n\n- `)
    expect(changelogs.get('@dsh/tools-core')).toContain('The change under test.')
    expect([...changelogs.keys()]).toEqual(['@dsh/tools-core'])
  })

  it('a minor to tools-presentation bumps it, and patches exactly the packages that depend on it', () => {
    const { before, after, changelogs } = version({ '@dsh/tools-presentation': 'minor' })
    const dependents = [...before.values()].filter((manifest) => manifest.dependencies?.['@dsh/tools-presentation'] !== undefined)
    const next = bump(versionOf(before, '@dsh/tools-presentation'), 'minor')
    expect(bumped(before, after)).toEqual({
      '@dsh/tools-presentation': next,
      ...Object.fromEntries(dependents.map((manifest) => [manifest.name, bump(manifest.version, 'patch')])),
    })
    for (const manifest of dependents) {
      expect(changelogs.get(manifest.name)).toContain('- Updated dependencies')
      expect(changelogs.get(manifest.name)).toContain(`@dsh/tools-presentation@${next}`)
    }
    // The workspace protocol stays in the manifest; pnpm publish turns it into a range.
    for (const manifest of dependents) expect(after.get(manifest.name)?.dependencies?.['@dsh/tools-presentation']).toBe('workspace:^')
  })

  it('a minor to the registry (0.x) leaves its ^0.1.0 peer range, so changesets bumps every peer dependent to a major', () => {
    const { before, after } = version({ '@dsh/tools-registry': 'minor' })
    const peers = [...before.values()].filter((manifest) => manifest.peerDependencies?.['@dsh/tools-registry'] !== undefined)
    expect(peers.length).toBeGreaterThan(0)
    expect(versionOf(before, '@dsh/tools-registry')).toMatch(/^0\./) // the premise: under 1.0 a minor leaves a ^ range
    expect(bumped(before, after)).toEqual({
      '@dsh/tools-registry': bump(versionOf(before, '@dsh/tools-registry'), 'minor'),
      ...Object.fromEntries(peers.map((manifest) => [manifest.name, bump(manifest.version, 'major')])),
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
      expect(bumped(before, after)).toEqual({ [leaf.name]: bump(leaf.version, 'minor') })
    }
  })
})
