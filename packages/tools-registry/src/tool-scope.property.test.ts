import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { agent, createHarness, tool } from './test-kit.js'

/** One change a harness may make; names come from a small pool so that they collide, shadow and restrict. */
type Operation =
  | { readonly kind: 'register'; readonly name: string }
  | { readonly kind: 'unregister'; readonly index: number }
  | { readonly kind: 'own'; readonly name: string }
  | { readonly kind: 'restrict'; readonly allow?: string[] | undefined; readonly deny?: string[] | undefined }
  | { readonly kind: 'lift'; readonly index: number }
  | { readonly kind: 'look' }

const name = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h')
const names = fc.uniqueArray(name, { minLength: 1, maxLength: 5 })
const operation: fc.Arbitrary<Operation> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('register' as const), name }), weight: 4 },
  fc.record({ kind: fc.constant('unregister' as const), index: fc.nat(20) }),
  fc.record({ kind: fc.constant('own' as const), name }),
  fc.record({ kind: fc.constant('restrict' as const), allow: fc.option(names, { nil: undefined }), deny: fc.option(names, { nil: undefined }) }),
  fc.record({ kind: fc.constant('lift' as const), index: fc.nat(5) }),
  fc.record({ kind: fc.constant('look' as const) }),
)

describe("a scope's view, for every sequence of changes", () => {
  it('is the admitted, unshadowed globals in registration order, then its own tools (checked against a model)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 10, maxLength: 60 }), async (operations) => {
        const { tools } = await createHarness()
        const alice = agent('alice')
        const scope = tools.scope(alice)
        // The model: what the registry holds, in registration order.
        const globals: Array<{ name: string; dispose: () => void }> = []
        const own = new Set<string>()
        const restrictions: Array<{ allow?: string[] | undefined; deny?: string[] | undefined; lift: () => void }> = []
        const expected = (): string[] => {
          const admitted = globals
            .map((entry) => entry.name)
            .filter((global) => !own.has(global))
            .filter((global) =>
              restrictions.every(
                (restriction) =>
                  (restriction.allow === undefined || restriction.allow.includes(global)) &&
                  (restriction.deny === undefined || !restriction.deny.includes(global)),
              ),
            )
          return [...admitted, ...own]
        }
        for (const step of operations) {
          if (step.kind === 'register' && !globals.some((entry) => entry.name === step.name)) {
            globals.push({ name: step.name, dispose: tools.register(tool(step.name)) })
          } else if (step.kind === 'unregister' && globals.length > 0) {
            const [entry] = globals.splice(step.index % globals.length, 1)
            entry!.dispose()
          } else if (step.kind === 'own' && !own.has(step.name)) {
            scope.register(tool(step.name))
            own.add(step.name)
          } else if (step.kind === 'restrict') {
            const restriction = { ...(step.allow ? { allow: step.allow } : {}), ...(step.deny ? { deny: step.deny } : {}) }
            restrictions.push({ ...restriction, lift: scope.restrict(restriction) })
          } else if (step.kind === 'lift' && restrictions.length > 0) {
            const [restriction] = restrictions.splice(step.index % restrictions.length, 1)
            restriction!.lift()
          }
          // Looking between changes fills the cache, so later changes must invalidate it.
          if (step.kind === 'look' || operations.length % 2 === 0) {
            expect(scope.schemas().map((schema) => schema.name)).toEqual(expected())
          }
        }
        const visible = expected()
        expect(scope.schemas().map((schema) => schema.name)).toEqual(visible)
        for (const candidate of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']) {
          expect(tools.get(candidate, alice) !== undefined).toBe(visible.includes(candidate))
        }
      }),
      { numRuns: 150 },
    )
  })
})
