import { posix, win32 } from 'node:path'
import { PresentationOptionsError } from './presentation-options-error.js'

/** Characters that may come right before a path for it to count as one: the start, whitespace, quotes, brackets. */
const BEFORE = /[\s"'`([{<]/
/** Characters that may end a path right after the cwd: whitespace, quotes, closing brackets, punctuation. */
const AFTER = /[\s"'`)\]}>,;:]/

interface PathStyle {
  readonly windows: boolean
  /** The cwd without trailing separators. */
  readonly root: string
}

function isWindowsAbsolute(path: string): boolean {
  return /^[A-Za-z]:[\\/]/.test(path) || /^\\\\[^\\]/.test(path)
}

/** True when `path` is absolute in POSIX (`/…`) or Windows (`C:\…`, `\\server\…`) form. */
export function isAbsolutePath(path: string): boolean {
  return path.startsWith('/') || isWindowsAbsolute(path)
}

/** Throws `PresentationOptionsError` (code `INVALID_CONFIG`) unless `cwd` is an absolute path. */
export function checkSessionCwd(cwd: unknown): asserts cwd is string {
  if (typeof cwd !== 'string' || !isAbsolutePath(cwd)) {
    throw new PresentationOptionsError('cwd', `The session cwd must be an absolute path, got ${JSON.stringify(cwd)}.`)
  }
}

function pathStyle(cwd: string): PathStyle | undefined {
  checkSessionCwd(cwd)
  const windows = !cwd.startsWith('/')
  let root = cwd
  while (root.length > 1 && (root.endsWith('/') || (windows && root.endsWith('\\')))) root = root.slice(0, -1)
  // The filesystem root: every absolute path is "inside" it, and shortening them all would only confuse.
  if (root === '/' || (windows && /^[A-Za-z]:$/.test(root))) return undefined
  return { windows, root }
}

function isSeparator(char: string | undefined, windows: boolean): boolean {
  return char === '/' || (windows && char === '\\')
}

/**
 * Shows the absolute paths inside `cwd` that occur in `title` relative to it: with cwd `/work/app`,
 * `Edit /work/app/src/main.ts` becomes `Edit src/main.ts` and `/work/app` itself becomes `.`. Segment-aware: with
 * cwd `/home/a`, `/home/ab/x` is left alone. A path counts when it starts the title or follows whitespace, a quote
 * or an opening bracket (so `PATH=/work/app/bin` and `file:///work/app` keep their meaning). Windows paths
 * (`C:\work\app`) are compared case-insensitively, with `/` and `\` as the same separator. A cwd that is the
 * filesystem root leaves titles unchanged.
 * Throws `PresentationOptionsError` (code `INVALID_CONFIG`) when `cwd` is not absolute.
 */
export function relativizeTitle(title: string, cwd: string): string {
  const style = pathStyle(cwd)
  if (style === undefined) return title
  const { root, windows } = style
  const fold = (text: string): string => text.toLowerCase().replaceAll('/', '\\')
  const needle = windows ? fold(root) : root
  // Folding the whole title could change its length (some characters expand when lower-cased), so compare slice
  // by slice.
  const find = (from: number): number => {
    if (!windows) return title.indexOf(needle, from)
    for (let at = from; at + needle.length <= title.length; at += 1) {
      if (fold(title.slice(at, at + needle.length)) === needle) return at
    }
    return -1
  }
  let result = ''
  let copied = 0
  let from = 0
  for (let at = find(from); at !== -1; at = find(from)) {
    from = at + 1
    if (at > 0 && !BEFORE.test(title[at - 1]!)) continue
    const end = at + needle.length
    const next = title[end]
    if (isSeparator(next, windows)) {
      let after = end
      while (isSeparator(title[after], windows)) after += 1
      const rest = title[after]
      const bare = rest === undefined || AFTER.test(rest)
      result += title.slice(copied, at) + (bare ? `.${next}` : '')
      copied = after
    } else if (next === undefined || AFTER.test(next)) {
      result += `${title.slice(copied, at)}.`
      copied = end
    } else {
      continue
    }
    from = copied
  }
  return copied === 0 ? title : result + title.slice(copied)
}

/**
 * `path` made absolute against the session `cwd`: an absolute path is returned unchanged (ACP wants absolute
 * paths, and the ones a card already has are shown as they are); a relative one is resolved against `cwd` in the
 * cwd's own style (POSIX or Windows). Throws `PresentationOptionsError` when `cwd` is not absolute.
 */
export function resolveSessionPath(path: string, cwd: string): string {
  checkSessionCwd(cwd)
  if (isAbsolutePath(path)) return path
  return cwd.startsWith('/') ? posix.resolve(cwd, path) : win32.resolve(cwd, path)
}
