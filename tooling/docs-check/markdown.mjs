// Fenced code blocks of a markdown file and the attributes after the language in their info string, shared by the
// docs check (type-checks ts blocks, checks install lines) and the doc-driven consumer scenarios, which read:
//   ```sh run            a shell block run in the scenario project, in document order
//   ```ts file=src/x.ts  the block's text written to that path (any language)
//   ```text output       every non-empty line must appear in the stdout of the last `sh run` block before it
// Other attributes are single words (`ignore-check`) or key=value pairs.

/**
 * Every fenced block of `text`: { lang, attributes, body, line }, `line` being the 1-based line of the first body
 * line. An indented fence (inside a list item) has that indentation removed from its body lines.
 */
export function fencedBlocks(text) {
  const blocks = []
  let open
  text.split('\n').forEach((line, index) => {
    if (open === undefined) {
      const fence = /^( *)(`{3,})([^`\s]*)(.*)$/.exec(line)
      if (fence) open = { indent: fence[1].length, marker: fence[2], lang: fence[3], info: fence[4], lines: [], line: index + 2 }
      return
    }
    const close = /^ *(`{3,})\s*$/.exec(line)
    if (close && close[1].length >= open.marker.length) {
      blocks.push({ lang: open.lang, attributes: parseAttributes(open.info), body: open.lines.join('\n'), line: open.line })
      open = undefined
      return
    }
    open.lines.push(line.slice(Math.min(open.indent, line.length - line.trimStart().length)))
  })
  return blocks
}

/** `run file=src/main.ts ignore-check` → { run: true, file: 'src/main.ts', 'ignore-check': true } */
export function parseAttributes(info) {
  const attributes = {}
  for (const word of info.trim().split(/\s+/).filter(Boolean)) {
    const equals = word.indexOf('=')
    if (equals === -1) attributes[word] = true
    else attributes[word.slice(0, equals)] = word.slice(equals + 1).replace(/^["']|["']$/g, '')
  }
  return attributes
}

export const isTypeScript = (block) => /^(ts|typescript|tsx)$/.test(block.lang)
export const isShell = (block) => /^(sh|bash|shell|console)$/.test(block.lang)

/** The package names a TypeScript source imports (static, type-only, side-effect and dynamic imports). */
export function importedPackages(source) {
  const names = new Set()
  const pattern = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g
  for (const [, specifier] of source.matchAll(pattern)) {
    if (specifier.startsWith('.') || specifier.startsWith('node:') || specifier.startsWith('/')) continue
    const parts = specifier.split('/')
    names.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0])
  }
  return names
}
