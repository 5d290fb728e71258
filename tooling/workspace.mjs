// The workspace's packages, read from the folders pnpm-workspace.yaml names.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export const root = join(import.meta.dirname, '..')

/** Every package under packages/: { dir, name, json }. */
export function listPackages() {
  const base = join(root, 'packages')
  return readdirSync(base, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(base, entry.name, 'package.json')))
    .map((entry) => {
      const dir = join(base, entry.name)
      const json = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
      return { dir, folder: entry.name, name: json.name, json }
    })
    .sort((a, b) => a.folder.localeCompare(b.folder))
}
