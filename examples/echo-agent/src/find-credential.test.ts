import { describe, expect, it } from 'vitest'
import { findCredential, redactCredentials, redactJson } from './find-credential.js'

describe('findCredential', () => {
  it.each([
    ['API_TOKEN=sk-demo-4f9c2a7e1b3d5f60\n', { kind: 'an assignment to API_TOKEN', sample: 'API_TOKEN=sk-d…' }],
    ['export DB_PASSWORD="hunter22"', { kind: 'an assignment to DB_PASSWORD', sample: 'DB_PASSWORD=hu…' }],
    ['STRIPE_API_KEY: abcd1234', { kind: 'an assignment to STRIPE_API_KEY', sample: 'STRIPE_API_KEY=ab…' }],
    ['-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl', { kind: 'a private key', sample: '-----BEGIN OPENSSH PRIVATE KEY-----' }],
    ['key: sk-abcdefghijklmnopqrstuv', { kind: 'an API key', sample: 'sk-a…' }],
    ['token ghp_abcdefghijklmnopqrstuvwxyz0123', { kind: 'a GitHub token', sample: 'ghp_…' }],
    ['AKIAIOSFODNN7EXAMPLE', { kind: 'an AWS access key id', sample: 'AKIA…' }],
  ])('finds %j, masked', (text, finding) => {
    expect(findCredential(text)).toEqual(finding)
  })

  it.each(['LOG_LEVEL=debug', 'hello world', 'TOKEN_COUNT', 'the password is in the vault', 'sk-short'])('ignores %j', (text) => {
    expect(findCredential(text)).toBeUndefined()
  })

  it('never shows more than four characters of the secret', () => {
    const finding = findCredential('MY_SECRET=abcdefghijklmnopqrstuvwxyz')
    expect(finding?.sample).toBe('MY_SECRET=abcd…')
  })
})

describe('redactCredentials and redactJson', () => {
  it('replaces every secret and keeps the rest of the text', () => {
    expect(redactCredentials('API_TOKEN=sk-demo-4f9c2a7e1b3d5f60\nLOG_LEVEL=debug\nkey sk-abcdefghijklmnopqrstuv')).toBe(
      'API_TOKEN=[redacted]\nLOG_LEVEL=debug\nkey [redacted]',
    )
  })

  it('redacts every string of a JSON value, keys included, and leaves what findCredential cannot find', () => {
    const value = { text: 'API_TOKEN=sk-demo-4f9c2a7e1b3d5f60', list: ['ghp_abcdefghijklmnopqrstuvwxyz0123', 3], 'sk-abcdefghijklmnopqrstuv': null }
    const redacted = redactJson(value)
    expect(redacted).toEqual({ text: 'API_TOKEN=[redacted]', list: ['[redacted]', 3], '[redacted]': null })
    for (const secret of ['sk-demo-4f9c2a7e1b3d5f60', 'ghp_abcdefghijklmnopqrstuvwxyz0123', 'sk-abcdefghijklmnopqrstuv']) {
      expect(JSON.stringify(redacted)).not.toContain(secret)
    }
    expect(redactJson(undefined)).toBeUndefined()
  })
})
