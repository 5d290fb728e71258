import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PresentationOptionsError } from './presentation-options-error.js'
import { isAbsolutePath, relativizeTitle, resolveSessionPath } from './relativize-title.js'

describe('relativizeTitle', () => {
  it('shows paths inside the cwd relative', () => {
    expect(relativizeTitle('Edit /work/app/src/main.ts', '/work/app')).toBe('Edit src/main.ts')
    expect(relativizeTitle('Edit /work/app/src/main.ts', '/work/app/')).toBe('Edit src/main.ts')
    expect(relativizeTitle('/work/app/a.ts', '/work/app')).toBe('a.ts')
    expect(relativizeTitle('cp /work/app/a /work/app/b', '/work/app')).toBe('cp a b')
    expect(relativizeTitle('Read "/work/app/a b.txt"', '/work/app')).toBe('Read "a b.txt"')
    expect(relativizeTitle('Read `/work/app/x`', '/work/app')).toBe('Read `x`')
    expect(relativizeTitle('Read /work/app/x.ts:12', '/work/app')).toBe('Read x.ts:12')
    expect(relativizeTitle('ls (/work/app/src)', '/work/app')).toBe('ls (src)')
  })

  it('turns the cwd itself into .', () => {
    expect(relativizeTitle('ls /work/app', '/work/app')).toBe('ls .')
    expect(relativizeTitle('ls /work/app/', '/work/app')).toBe('ls ./')
    expect(relativizeTitle('ls /work/app, then /work/app/x', '/work/app')).toBe('ls ., then x')
    expect(relativizeTitle('ls /work/app//x', '/work/app')).toBe('ls x')
  })

  it('is segment-aware: a sibling sharing a prefix stays absolute', () => {
    expect(relativizeTitle('Edit /home/ab/x', '/home/a')).toBe('Edit /home/ab/x')
    expect(relativizeTitle('/home/a.bak/x and /home/a/x', '/home/a')).toBe('/home/a.bak/x and x')
    expect(relativizeTitle('Edit /home/a-b', '/home/a')).toBe('Edit /home/a-b')
  })

  it('leaves paths that are only a suffix of another path, or parts of URLs and assignments, alone', () => {
    expect(relativizeTitle('cat /mnt/work/app/x', '/work/app')).toBe('cat /mnt/work/app/x')
    expect(relativizeTitle('open file:///work/app/x', '/work/app')).toBe('open file:///work/app/x')
    expect(relativizeTitle('PATH=/work/app/bin:$PATH make', '/work/app')).toBe('PATH=/work/app/bin:$PATH make')
  })

  it('handles Windows paths case-insensitively with either separator', () => {
    expect(relativizeTitle('Edit C:\\Work\\App\\src\\a.ts', 'c:\\work\\app')).toBe('Edit src\\a.ts')
    expect(relativizeTitle('Edit C:/work/app/a.ts', 'C:\\work\\app\\')).toBe('Edit a.ts')
    expect(relativizeTitle('Edit C:\\work\\apps\\a.ts', 'C:\\work\\app')).toBe('Edit C:\\work\\apps\\a.ts')
    expect(relativizeTitle('İ C:\\work\\app\\a', 'C:\\work\\app')).toBe('İ a')
  })

  it('leaves titles alone for a root cwd', () => {
    expect(relativizeTitle('cat /etc/hosts', '/')).toBe('cat /etc/hosts')
    expect(relativizeTitle('type C:\\x', 'C:\\')).toBe('type C:\\x')
  })

  it('throws INVALID_CONFIG for a relative cwd', () => {
    expect(() => relativizeTitle('x', 'work/app')).toThrow(PresentationOptionsError)
    expect(() => relativizeTitle('x', '')).toThrow(/absolute/)
  })

  it('never touches a title without the cwd in it, and never produces a leading separator (property)', () => {
    const segment = fc.constantFrom('a', 'ab', 'app', 'b', 'x.ts', 'é')
    const cwd = fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => `/${parts.join('/')}`)
    const word = fc.oneof(
      segment,
      fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `/${parts.join('/')}`),
      fc.constantFrom(' ', '"', '(', ')', ':', '//', '='),
    )
    const title = fc.array(word, { maxLength: 8 }).map((words) => words.join(' '))
    fc.assert(
      fc.property(title, cwd, (text, dir) => {
        const shown = relativizeTitle(text, dir)
        if (!text.includes(dir)) expect(shown).toBe(text)
        // Every absolute path token that is not inside the cwd survives as it was.
        for (const token of text.split(' ')) {
          if (token.startsWith('/') && token !== dir && !token.startsWith(`${dir}/`)) expect(shown.split(' ')).toContain(token)
        }
      }),
      { numRuns: 500 },
    )
  })
})

describe('resolveSessionPath', () => {
  it('keeps absolute paths and resolves relative ones against the cwd', () => {
    expect(resolveSessionPath('/etc/hosts', '/work/app')).toBe('/etc/hosts')
    expect(resolveSessionPath('src/a.ts', '/work/app')).toBe('/work/app/src/a.ts')
    expect(resolveSessionPath('../b', '/work/app')).toBe('/work/b')
    expect(resolveSessionPath('src\\a.ts', 'C:\\work\\app')).toBe('C:\\work\\app\\src\\a.ts')
    expect(() => resolveSessionPath('a', 'rel')).toThrow(PresentationOptionsError)
  })

  it('recognizes absolute paths', () => {
    expect(['/a', 'C:\\a', 'c:/a', '\\\\server\\share'].map(isAbsolutePath)).toEqual([true, true, true, true])
    expect(['a', './a', 'C:a', ''].map(isAbsolutePath)).toEqual([false, false, false, false])
  })
})
