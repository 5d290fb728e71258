// References of a markdown page to other documents, checked against the repository (the docs check runs this over
// every page it type-checks). A reader must be able to open everything a page points at:
//   - a relative link `[text](path#anchor)` names a file or folder that exists (relative to the page), and an
//     anchor a heading of that markdown file (GitHub's slugs) or of the page itself (`[text](#anchor)`);
//   - a repository path written as code (`docs/reference/tools-mcp.md`, `examples/mcp-agent/src/main.ts`) exists,
//     unless it is a pattern (`packages/<name>/`, `src/**/*.test.ts`, `tool-__NAME__`) or the page names it in a
//     comment `<!-- not-in-repository: packages/tool-files docs/reference/tool-files.md -->` (a worked example's
//     files that a reader creates);
//   - no page cites a document that only the project's authors have (the specification documents the project was
//     written from, its design notes): a page states the fact itself or links to a page of the repository.
// Code blocks are not read: what they show is checked by the type-check and the consumer scenarios.
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'

/** Top-level folders of the repository whose paths, written as code in a page, must exist. */
const repositoryRoots = ['packages', 'docs', 'examples', 'tooling', 'bench', '.changeset', '.ci']

/** Names of documents outside the repository that pages used to cite; each one with the reason a reader gets. */
const outsideDocuments = [
  { pattern: /\b(?:user guide|cookbook|reference page|package README)\s+00\d\b/i, what: 'a specification document (not in the repository)' },
  { pattern: /\b00\d_[A-Za-z0-9_-]+\.(?:txt|md)\b/, what: 'a specification document (not in the repository)' },
  { pattern: /\bthe seeds\b|\bseeds\//i, what: 'the specification documents (not in the repository)' },
  { pattern: /(?<![\w/.-])(?:DESIGN|STYLE|TOOLCHAIN)\.md\b/, what: 'a design note of the authors (not in the repository)' },
  { pattern: /\.\.\/shared\/(?!conformance\b)/, what: 'a folder beside the repository that users do not have' },
]

/** Text of a page outside its fenced code blocks, with each line's number (1-based). */
function proseLines(text) {
  const lines = []
  let fence
  text.split('\n').forEach((line, index) => {
    const marker = /^ *(`{3,}|~{3,})/.exec(line)?.[1]
    if (fence === undefined && marker) fence = marker
    else if (fence !== undefined && marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined
    else if (fence === undefined) lines.push({ line: index + 1, text: line })
  })
  return lines
}

/** GitHub's anchor for a heading: lower case, punctuation dropped (but `-` and `_`), spaces to `-`. */
export function headingSlug(heading) {
  return heading
    .trim()
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')
}

/** Every anchor a markdown text defines: its headings' slugs (repeats get -1, -2, … as on GitHub). */
export function anchorsOf(text) {
  const anchors = new Set()
  const seen = new Map()
  for (const { text: line } of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1]
    if (heading === undefined) continue
    const slug = headingSlug(heading)
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  for (const [, id] of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(id)
  return anchors
}

const isPattern = (path) => /[<>*{}$]|__[A-Z]+__|\.\.\.|…/.test(path)

/**
 * The problems of one page's references, as `line: message` strings. `file` is the page's absolute path,
 * `root` the repository's.
 */
export function referenceProblems(file, text, root) {
  const problems = []
  const created = new Set([...text.matchAll(/<!--\s*not-in-repository:([^>]*?)-->/g)].flatMap(([, list]) => list.trim().split(/\s+/)))
  const anchorCache = new Map()
  const anchorsOfFile = (path) => {
    if (!anchorCache.has(path)) anchorCache.set(path, anchorsOf(path === file ? text : readFileSync(path, 'utf8')))
    return anchorCache.get(path)
  }
  for (const { line, text: prose } of proseLines(text)) {
    // Inline code is not a link, but a repository path in it is a reference.
    const withoutCode = prose.replace(/`[^`]*`/g, (code) => ' '.repeat(code.length))
    for (const [, target] of withoutCode.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue // https:, mailto:, …
      const [pathPart, anchor] = target.split('#', 2)
      const path = pathPart === '' ? file : join(dirname(file), decodeURIComponent(pathPart))
      if (!path.startsWith(root)) {
        problems.push(`${line}: the link ${target} leaves the repository`)
        continue
      }
      if (path !== file && !existsSync(path)) {
        problems.push(`${line}: the link ${target} names ${relative(root, path)}, which is not in the repository`)
        continue
      }
      if (anchor && path.endsWith('.md') && (path === file || statSync(path).isFile()) && !anchorsOfFile(path).has(anchor)) {
        problems.push(`${line}: the link ${target}: ${relative(root, path)} has no heading with the anchor #${anchor}`)
      }
    }
    for (const [, code] of prose.matchAll(/`([^`\s]+)`/g)) {
      const path = code.replace(/[#:].*$/, '').replace(/\/$/, '')
      const first = path.split('/')[0]
      if (!repositoryRoots.includes(first) || !path.includes('/') || isPattern(path) || created.has(path)) continue
      if (!existsSync(join(root, path))) problems.push(`${line}: \`${code}\` is not a path in the repository`)
    }
    for (const { pattern, what } of outsideDocuments) {
      const found = pattern.exec(withoutCode)?.[0]
      if (found) problems.push(`${line}: "${found}" cites ${what}; state the fact, or link to a page of the repository`)
    }
  }
  return problems
}
