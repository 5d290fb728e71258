import { describe, expect, it } from 'vitest'
import { cordisRangeProblems } from './cordis-range.mjs'

const manifest = (peer: string, dev = '4.0.0-rc.10') => ({ peerDependencies: { cordis: peer }, devDependencies: { cordis: dev } })

describe('cordisRangeProblems', () => {
  it('accepts ^4.0.0-rc.10 with the dev dependency pinned', () => {
    expect(cordisRangeProblems(manifest('^4.0.0-rc.10'), '4.0.0-rc.10')).toEqual([])
  })

  it('rejects the exact pin the packages had, which would refuse cordis 4.0.0', () => {
    expect(cordisRangeProblems(manifest('4.0.0-rc.10'), '4.0.0-rc.10')).toContain('peerDependencies.cordis "4.0.0-rc.10" refuses cordis 4.0.0')
  })

  it('rejects ranges that admit 3.x or 5.x, or refuse the release candidate we test with', () => {
    expect(cordisRangeProblems(manifest('>=4.0.0-rc.10'), '4.0.0-rc.10')).toContain('peerDependencies.cordis ">=4.0.0-rc.10" admits cordis 5.0.0')
    expect(cordisRangeProblems(manifest('^3.18.1 || ^4.0.0-rc.10'), '4.0.0-rc.10')).toContain(
      'peerDependencies.cordis "^3.18.1 || ^4.0.0-rc.10" admits cordis 3.18.1',
    )
    expect(cordisRangeProblems(manifest('^4.0.0'), '4.0.0-rc.10')).toEqual(['peerDependencies.cordis "^4.0.0" refuses cordis 4.0.0-rc.10'])
  })

  it('wants the dev dependency pinned to the tested version', () => {
    expect(cordisRangeProblems(manifest('^4.0.0-rc.10', '^4.0.0-rc.10'), '4.0.0-rc.10')).toEqual([
      'devDependencies.cordis must be pinned to 4.0.0-rc.10, found ^4.0.0-rc.10',
    ])
  })

  it('says nothing about a package without cordis', () => {
    expect(cordisRangeProblems({ dependencies: { diff: '^9.0.0' } }, '4.0.0-rc.10')).toEqual([])
  })
})
