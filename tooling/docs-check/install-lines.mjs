// The install-line rule of the docs check, over one markdown file's fenced blocks (markdown.mjs): what its
// TypeScript examples import must be named on an `npm install` line of its shell blocks, with cordis pinned to the
// version that works (a bare `cordis` installs 3.x, which fails at run time), and a tarball line must be the one
// `pnpm pack:all` prints (installing only some tarballs makes npm fetch the others from the registry: 404).
import { importedPackages, isShell, isTypeScript } from './markdown.mjs'

/** The `npm install` lines of the shell blocks, as words from `npm` on, comments removed. */
export function installLines(blocks) {
  return blocks
    .filter(isShell)
    .flatMap((block) => block.body.split('\n'))
    .map((line) => line.replace(/#.*$/, '').trim().split(/\s+/))
    .map((words) => {
      const start = words.findIndex((word, index) => word === 'npm' && ['install', 'i', 'add'].includes(words[index + 1]))
      return start === -1 ? undefined : words.slice(start)
    })
    .filter(Boolean)
}

/** What the install lines name: every word but flags, `@dsh/x@1.2.3` also as `@dsh/x`, a `*.tgz` glob as all packages. */
export function namedOnInstallLines(blocks, packageNames) {
  const named = new Set()
  for (const words of installLines(blocks)) {
    for (const word of words.slice(2)) {
      if (word.startsWith('-')) continue
      if (word.endsWith('*.tgz')) for (const name of packageNames) named.add(name)
      named.add(word)
      const versioned = /^(@dsh\/[^@]+)@/.exec(word)
      if (versioned) named.add(versioned[1])
    }
  }
  return named
}

/**
 * The file's problems (empty when it follows the rule).
 * `cordis` is the spelling that works (`cordis@4.0.0-rc.10`), `installLine` the tarball line pack:all prints.
 */
export function installProblems(blocks, { cordis, installLine, packageNames }) {
  const named = namedOnInstallLines(blocks, packageNames)
  const problems = []
  for (const words of installLines(blocks).filter((line) => line.some((word) => word.endsWith('.tgz')))) {
    if (words.join(' ') !== installLine) problems.push(`\`${words.join(' ')}\` must be \`${installLine}\``)
  }
  for (const word of named) {
    if ((word === 'cordis' || word.startsWith('cordis@')) && word !== cordis) {
      problems.push(`an install line names ${word}; it must be ${cordis} (a bare cordis installs 3.x)`)
    }
  }
  const imported = new Set(blocks.filter(isTypeScript).flatMap((block) => [...importedPackages(block.body)]))
  for (const name of [...imported].sort()) {
    if (name.startsWith('@dsh/') && !named.has(name)) {
      problems.push(`its examples import ${name}, but no \`npm install\` line of a sh block names it`)
    }
    if (name === 'cordis' && !named.has(cordis)) {
      problems.push(`its examples import cordis, but no \`npm install\` line of a sh block names ${cordis}`)
    }
  }
  return problems
}
