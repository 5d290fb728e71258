import type { Agent } from './agent.js'
import type { ToolSchema } from './tool.js'

/**
 * The cordis service name under which packages look for a system-prompt assembler: `ctx.systemPrompt`. The
 * registry and tool packages inject it optionally; nothing in dsh tools provides it.
 */
export const SYSTEM_PROMPT_SERVICE = 'systemPrompt' as const

/**
 * What one system-prompt assembly is for, passed to every contribution (tool schemas and guidance sections) of that
 * assembly. The assembler builds one per prompt it assembles: one per agent and model request, typically.
 */
export interface SystemPromptAssembly {
  /**
   * The agent the prompt is for. Contributions answer for this agent: the registry returns the tools this agent
   * sees after its restrictions, and a tool package may leave out guidance for tools the agent cannot call. Absent
   * for an agent-less prompt, which sees the global tools.
   */
  readonly agent?: Agent | undefined
  /**
   * Fires when the assembler gives up on this assembly (the turn was cancelled, a newer prompt replaced it). A
   * contribution that does slow work stops and rejects; a synchronous one may ignore it.
   */
  readonly signal?: AbortSignal | undefined
}

/** What a tool-schema provider answers for one assembly: the tools to show, and the names to order them by. */
export interface SystemPromptTools {
  /**
   * The model-facing schemas (`{ name, description, parameters }`) of every tool the assembly's agent can call,
   * after its restrictions, in the provider's order (for the registry: the admitted globals in registration order,
   * then the agent's own tools). Fresh copies: the assembler may keep or change them.
   */
  readonly schemas: readonly ToolSchema[]
  /**
   * Every tool name known for the assembly's agent before its restrictions apply, in the same order, each once
   * (for the registry: every global tool, then the agent's own tools, a shadowed global at the agent's tool). The
   * names of `schemas` are a subsequence of it. An assembler uses it to order tools stably (a prompt cache survives
   * a restriction being added or lifted) or to say that a tool exists but is not available. It may name tools the
   * agent cannot call: never show it to the model as a list of callable tools.
   */
  readonly knownNames: readonly string[]
}

/**
 * A tool-schema provider: called once per assembly. The registry registers one with every `systemPrompt` service
 * it finds (`ctx.systemPrompt.tools(provider)`). It may throw (a malformed assembly, an aborted signal); the
 * assembler decides what a failed contribution means for its prompt.
 */
export type SystemPromptToolProvider = (assembly: SystemPromptAssembly) => SystemPromptTools | PromiseLike<SystemPromptTools>

/** A guidance section a tool package contributes to the system prompt: how to use its tools well. */
export interface SystemPromptSection {
  /**
   * A stable id, unique among contributions: the package and the topic, for example `'tool-bash'`. An assembler
   * may order, deduplicate or let a user switch off sections by it.
   */
  readonly id: string
  /** A short heading, for assemblers that render sections under headings (`Running commands`). */
  readonly title?: string | undefined
  /** The section's text, written for the model: short, plain text or Markdown. */
  readonly text: string
}

/**
 * A guidance-section provider: called once per assembly; `undefined` contributes nothing to that assembly (the
 * agent cannot call the tools the section is about, say).
 */
export type SystemPromptSectionProvider = (
  assembly: SystemPromptAssembly,
) => SystemPromptSection | undefined | PromiseLike<SystemPromptSection | undefined>

/**
 * The system-prompt seam: the structural shape the registry and tool packages expect of the cordis service
 * `ctx.systemPrompt` (see {@link SYSTEM_PROMPT_SERVICE}). Any assembler works; no system-prompt package is a
 * dependency of dsh tools. The registry feeds its tool schemas through `tools()` and needs nothing else; tool
 * packages contribute guidance through `section()`, which an assembler that shows no guidance may leave out.
 *
 * Both methods register a contribution the assembler calls for each assembly and return its disposer. The
 * disposer may be called more than once and after the service was disposed; it must then do nothing. A
 * contributor calls it when its own fiber ends (for the registry: when the registry is disposed) or when the
 * service is replaced.
 */
export interface SystemPromptService {
  /** Registers a tool-schema provider (the registry registers one). Returns the disposer. */
  tools(provider: SystemPromptToolProvider): () => void
  /**
   * Registers a guidance-section provider (tool packages register theirs). Returns the disposer. Optional: without
   * it, tool packages' guidance is left out (and a warning says so), and the registry's tool schemas still arrive.
   */
  section?(provider: SystemPromptSectionProvider): () => void
}
