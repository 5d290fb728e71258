import type { Agent, AgentInjectOptions, ContentBlock } from '@dsh/tools-core'
import { InvalidTestOptionError } from './invalid-test-option-error.js'

/** One `agent.inject` call a {@link TestAgent} received. */
export interface InjectedContent {
  /** The injected content (a copy). */
  readonly content: readonly ContentBlock[]
  /** The options it came with (who injected it). */
  readonly options: AgentInjectOptions
}

/** An {@link Agent} for tests that records what tools inject (background task notices, say). */
export interface TestAgent extends Agent {
  /** Every `inject` so far, in order. */
  readonly injected: readonly InjectedContent[]
  /** Records the content, then calls `onInject` (whose throw it passes on). */
  inject(content: ContentBlock[], options: AgentInjectOptions): void
}

/** Options of {@link createTestAgent}. */
export interface TestAgentOptions {
  /** The agent's working directory (absolute). */
  readonly cwd?: string | undefined
  /** The agent that started this one. */
  readonly parent?: Agent | undefined
  /**
   * Called after each inject is recorded. Throw from it to play an agent that is gone (a tool must guard its
   * `inject` calls), or resolve a promise a test waits on.
   */
  readonly onInject?: ((injected: InjectedContent) => void) | undefined
}

/**
 * Creates an agent with the given id that records every `inject`. Scopes are keyed by the agent object, so keep
 * using the same object for one agent.
 */
export function createTestAgent(id: string, options: TestAgentOptions = {}): TestAgent {
  if (typeof id !== 'string' || id === '') throw new InvalidTestOptionError('id', 'an agent needs a non-empty string id')
  const injected: InjectedContent[] = []
  return {
    id,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.parent === undefined ? {} : { parent: options.parent }),
    injected,
    inject(content, injectOptions) {
      const record: InjectedContent = Object.freeze({
        content: Object.freeze(structuredClone(content)),
        options: structuredClone(injectOptions),
      })
      injected.push(record)
      options.onInject?.(record)
    },
  }
}
