// Helpers shared by this package's tests (not part of the package).
import type { ContentBlock, ToolDefinition } from '@dsh/tools-core'

/** A text block. */
export function text(value: string): ContentBlock {
  return { type: 'text', text: value }
}

/** A raw tool definition answering `[text(name)]`, unless `overrides` say otherwise. */
export function tool(name: string, overrides: Partial<ToolDefinition> = {}): ToolDefinition {
  return {
    name,
    description: `The ${name} tool.`,
    parameters: { type: 'object', properties: {} },
    async execute() {
      return [text(name)]
    },
    ...overrides,
  }
}

/** A promise with its resolver. */
export interface Deferred<T = void> {
  readonly promise: Promise<T>
  resolve(value: T): void
}

/** A promise resolved from outside. */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((settle) => {
    resolve = settle
  })
  return { promise, resolve }
}

/**
 * Resolves after `turns` turns of the event loop (`setImmediate`), never on a clock: long enough for any call that
 * was already started to reach its body, so "the other call never started" can be told apart from "not yet".
 */
export async function eventLoopTurns(turns = 20): Promise<void> {
  for (let turn = 0; turn < turns; turn++) await new Promise<void>((resolve) => setImmediate(resolve))
}
