import { describe, expect, it } from 'vitest'
import { describeFootprint, formatHotUnloadReport, type HotUnloadReport, type PluginFootprint } from './index.js'

const empty: PluginFootprint = { tools: [], scopes: [], guards: 0, listeners: [], effects: [], plugins: [], services: [], emitterListeners: [] }

describe('formatHotUnloadReport', () => {
  it('says a clean unload in one line, with what the plugin set up', () => {
    const report: HotUnloadReport = { plugin: 'p', cycles: 2, footprint: { ...empty, tools: ['a', 'b'], guards: 1 }, leaks: [], clean: true }
    expect(formatHotUnloadReport(report)).toBe('plugin "p" unloaded cleanly (2 load/dispose cycles). It had set up: global tools a, b; guards 1.')
  })

  it('lists each leak with its kind and, over several cycles, the cycle', () => {
    const report: HotUnloadReport = {
      plugin: 'p',
      cycles: 2,
      footprint: empty,
      leaks: [{ kind: 'reload', cycle: 2, message: 'loading it again failed: Error: x' }],
      clean: false,
    }
    expect(formatHotUnloadReport(report)).toBe(
      [
        'plugin "p" left 1 thing behind after its fiber was disposed (2 load/dispose cycles):',
        '  - [reload] loading it again failed: Error: x (cycle 2)',
        'It had set up: nothing.',
      ].join('\n'),
    )
  })
})

describe('describeFootprint', () => {
  it('names every category, counting repeats', () => {
    expect(
      describeFootprint({
        tools: ['read'],
        scopes: [
          { type: 'tool', agent: 'a', name: 'x' },
          { type: 'restriction', agent: 'a' },
        ],
        guards: 2,
        listeners: [
          { event: 'tools/result', owner: 'p' },
          { event: 'tools/result', owner: 'p' },
        ],
        effects: [{ label: 'tools.register("read")', owner: 'p' }],
        plugins: ['child'],
        services: ['svc'],
        emitterListeners: [{ emitter: 'process', event: 'exit' }],
      }),
    ).toBe(
      'global tools read; scope entries tool "x" of agent "a", a restriction of agent "a"; guards 2; ' +
        'listeners tools/result (through "p") ×2; effects tools.register("read") (on "p"); plugins child; services svc; ' +
        'emitter listeners process exit',
    )
    expect(describeFootprint(empty)).toBe('nothing')
  })
})
