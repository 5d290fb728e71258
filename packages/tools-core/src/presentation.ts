import type { ContentBlock } from './content.js'
import type { TaskProgress, TaskStatus } from './task.js'

/** What a call does, so a UI can pick an icon. */
export type ToolCallKind = 'read' | 'edit' | 'delete' | 'move' | 'search' | 'execute' | 'fetch' | 'other'

/** A file a call reads or changes, for editor follow-along. */
export interface FileLocation {
  /** Absolute path of the file. */
  path: string
  /** 1-based line, when the call is about one place in the file. */
  line?: number
}

/** One file's change: before and after. */
export interface FileDiff {
  /** Absolute path of the file. */
  path: string
  /** The text before the change; `null` when the file is new. */
  oldText: string | null
  /** The text after the change. */
  newText: string
}

/** The default pending card: a title, an optional icon, and the raw input. */
export interface GenericCallView {
  /** Discriminant. */
  card: 'generic'
  /** One line shown as the card's heading. */
  title: string
  /** Picks the card's icon. */
  kind?: ToolCallKind
  /** The call's arguments as the UI may show them. */
  rawInput?: unknown
  /** Extra content shown on the card while the call runs. */
  content?: ContentBlock[]
  /** Files the call reads or changes. */
  locations?: FileLocation[]
}

/** A shell command, shown as a terminal card. */
export interface TerminalCallView {
  /** Discriminant. */
  card: 'terminal'
  /** The heading: usually the command line. */
  title: string
  /** What the command is for, in words. */
  description?: string
  /** The directory the command runs in. */
  cwd?: string
}

/** A file create or modify, shown as an inline diff. */
export interface DiffCallView {
  /** Discriminant. */
  card: 'diff'
  /** The heading: usually the file's path. */
  title: string
  /** The changes the call proposes. */
  diffs: FileDiff[]
  /** Files the call changes. */
  locations?: FileLocation[]
}

/** The languages a `code` card's program may be written in. */
export type CodeLanguage = 'typescript' | 'javascript'

/**
 * A program that calls tools (Code Mode's `run_code`): each `await tools.x(args)` inside it is a sub-call through
 * the registry, shown as a card of its own that names this call as its `parent`.
 */
export interface CodeCallView {
  /** Discriminant. */
  card: 'code'
  /** The heading: usually what the program does. */
  title: string
  /** The language the program is written in. */
  language: CodeLanguage
  /** The program, as the model wrote it. */
  code: string
  /** What the program is for, in words. */
  description?: string
}

/** How a tool wants its pending call shown: a `card`-tagged render intent. */
export type ToolCallView = GenericCallView | TerminalCallView | DiffCallView | CodeCallView

/** The default completed card. Missing fields keep the pending card's. */
export interface GenericResultView {
  /** Discriminant. */
  card: 'generic'
  /** Replaces the pending title. */
  title?: string
  /** The content to show; defaults to the result's content. */
  content?: ContentBlock[]
}

/** A finished command: its output and how it ended. */
export interface TerminalResultView {
  /** Discriminant. */
  card: 'terminal'
  /** Replaces the pending title. */
  title?: string
  /** The captured output (stdout then stderr), possibly truncated. */
  output?: string
  /** The exit code; `null` when the process was ended by a signal. */
  exitCode?: number | null
  /** The signal that ended the process (`SIGTERM`, …), or `null`. */
  signal?: string | null
  /** True when the command ran past its timeout and was stopped. */
  timedOut?: boolean
}

/** A completed file mutation: the change to show. */
export interface DiffResultView {
  /** Discriminant. */
  card: 'diff'
  /** Replaces the pending title. */
  title?: string
  /** The applied changes. */
  diffs: FileDiff[]
}

/**
 * A task of the task layer (`@dsh/tool-tasks`), as a completed `task_output`, `task_kill` or `task_list` call shows
 * it: the task's id and status, its status message and progress, and the tail of the output read. A result-only card
 * (the pending call keeps its own).
 */
export interface TaskResultView {
  /** Discriminant. */
  card: 'task'
  /** Replaces the pending title. */
  title?: string
  /** The task's id. */
  taskId: string
  /** Where the task is. */
  status: TaskStatus
  /** The task's last status message. */
  statusMessage?: string
  /** The task's last progress report. */
  progress?: TaskProgress
  /** The output this read returned (the card shows its tail). */
  output?: string
}

/** How a program's run ended: `completed`, or the way it failed (an uncaught error, or a limit it hit). */
export type CodeRunStatus = 'completed' | 'error' | 'timeout' | 'memory' | 'aborted'

/** One tool call a program made, as its `code` card lists it (the sub-call's own card has the details). */
export interface CodeSubCall {
  /** The sub-call's id (`<outer call id>:code:<n>`), linking the line to the sub-call's own card. */
  callId: string
  /** The tool's name. */
  name: string
  /** True when the sub-call failed. */
  isError: boolean
  /** The error code of a failed sub-call (`DENIED`, `INVALID_ARGS`, …). */
  code?: string
}

/** A program's finished run: how it ended, its logs, its returned value and the tool calls it made. */
export interface CodeResultView {
  /** Discriminant. */
  card: 'code'
  /** Replaces the pending title. */
  title?: string
  /** How the run ended. */
  status: CodeRunStatus
  /** Why a failed run failed, in words (the uncaught error's message, the limit hit). */
  error?: string
  /** How long the run took, in milliseconds. */
  durationMs?: number
  /** The captured console output, possibly truncated (the card shows its tail). */
  logs?: string
  /** The returned value as text, possibly truncated (the card shows its tail). */
  value?: string
  /** Every tool call the program made, in the order they ended. */
  subCalls: CodeSubCall[]
}

/** How a tool wants its completed call shown: a `card`-tagged render intent. */
export type ToolResultView = GenericResultView | TerminalResultView | DiffResultView | TaskResultView | CodeResultView

/** The card kinds of the vocabulary. */
export type ToolCardKind = ToolCallView['card']
