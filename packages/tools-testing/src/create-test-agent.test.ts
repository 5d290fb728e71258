import { describe, expect, it } from 'vitest'
import { createTestAgent, InvalidTestOptionError, type InjectedContent } from './index.js'
import { text } from './test-kit.js'

describe('createTestAgent', () => {
  it('is an agent with the given id, cwd and parent', () => {
    const parent = createTestAgent('lead')
    const agent = createTestAgent('helper', { cwd: '/work', parent })
    expect(agent).toMatchObject({ id: 'helper', cwd: '/work', parent })
    expect(createTestAgent('bare')).not.toHaveProperty('cwd')
  })

  it('records every inject as a copy, in order', () => {
    const agent = createTestAgent('main')
    const content = [text('task 1 finished')]
    agent.inject(content, { source: { kind: 'plugin', plugin: 'bash' } })
    content[0] = text('changed afterwards')
    agent.inject([text('task 2 finished')], { source: { kind: 'plugin', plugin: 'bash' } })
    expect(agent.injected).toEqual([
      { content: [text('task 1 finished')], options: { source: { kind: 'plugin', plugin: 'bash' } } },
      { content: [text('task 2 finished')], options: { source: { kind: 'plugin', plugin: 'bash' } } },
    ])
  })

  it('calls onInject after recording, and passes on its throw (an agent that is gone)', () => {
    const seen: InjectedContent[] = []
    const live = createTestAgent('live', { onInject: (injected) => void seen.push(injected) })
    live.inject([text('hi')], { source: { kind: 'plugin', plugin: 'p' } })
    expect(seen).toEqual(live.injected)

    const gone = createTestAgent('gone', {
      onInject() {
        throw new Error('agent is disposed')
      },
    })
    expect(() => gone.inject([text('late')], { source: { kind: 'plugin', plugin: 'p' } })).toThrow('agent is disposed')
  })

  it('needs a non-empty id', () => {
    expect(() => createTestAgent('')).toThrow(InvalidTestOptionError)
  })
})
