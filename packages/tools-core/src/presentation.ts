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

/** How a tool wants its pending call shown: a `card`-tagged render intent. */
export type ToolCallView = GenericCallView | TerminalCallView | DiffCallView

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

/** How a tool wants its completed call shown: a `card`-tagged render intent. */
export type ToolResultView = GenericResultView | TerminalResultView | DiffResultView | TaskResultView

/** The card kinds of the vocabulary. */
export type ToolCardKind = ToolCallView['card']
