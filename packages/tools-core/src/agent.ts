import type { ContentBlock } from './content.js'

/** Where injected content comes from. */
export interface AgentInjectOptions {
  /** The plugin that injects. */
  source: { kind: 'plugin'; plugin: string }
}

/**
 * The minimal agent the pipeline needs: an identity for scopes and approvals, an optional parent (a subagent's
 * spawner), an optional channel for notices, and an optional working directory.
 */
export interface Agent {
  /** A stable id, unique among live agents. */
  readonly id: string
  /** The agent that started this one, if any. */
  readonly parent?: Agent | undefined
  /** The agent's working directory (absolute), used by tools that touch files or run commands. */
  readonly cwd?: string | undefined
  /**
   * Appends durable content that the agent's NEXT model request sees (a background task finished, say). It is
   * not a wake-up: an idle agent stays idle. May throw when the agent is gone; callers guard it.
   */
  inject?(content: ContentBlock[], options: AgentInjectOptions): void | Promise<void>
}
