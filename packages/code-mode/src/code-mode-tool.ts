import { defineTool } from '@dsh/tools-schema'

/**
 * The `code_mode` tool: repeats a text a number of times. Replace the parameters and the body with your tool's;
 * keep the shape (validated, typed arguments; `exec.signal` honoured; domain failures reported in the text).
 */
export const codeModeTool = defineTool({
  name: 'code_mode',
  description: 'Repeat a text a number of times, separated by newlines.',
  parameters: {
    text: { type: 'string', required: true, description: 'The text to repeat' },
    times: { type: 'integer', description: 'How many times (default 1)' },
  },
  async execute(args, exec) {
    exec.signal.throwIfAborted()
    const times = args.times ?? 1
    if (times < 1) return `Nothing to do: times is ${times}.`
    return Array.from({ length: times }, () => args.text).join('\n')
  },
})
