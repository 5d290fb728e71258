import { genericCall } from '@dsh/tools-presentation'
import type {} from '@dsh/tools-registry' // types ctx.tools
import { defineTool } from '@dsh/tools-schema'
import type { Context } from 'cordis'

/**
 * The `echo` tool: the smallest complete tool. Its parameters are written in the schema DSL of
 * `@dsh/tools-schema`, so the model sees their JSON Schema, the body gets them typed and already validated, and a
 * call with wrong arguments never reaches the body: it comes back to the model as `INVALID_ARGS`, listing every
 * problem with its path.
 */
export const echoTool = defineTool({
  name: 'echo',
  description: 'Say a text back, once or a few times, optionally in upper case.',
  parameters: {
    text: { type: 'string', required: true, description: 'The text to say back' },
    times: { type: 'integer', enum: [1, 2, 3], description: 'How many times to say it', default: 1 },
    shout: { type: 'boolean', description: 'Say it in upper case' },
  },
  // Echo has no side effects: a loop may run several echo calls of one step together.
  concurrencySafe: true,
  execute(args) {
    // args: { text: string; times?: 1 | 2 | 3; shout?: boolean }
    const text = args.shout === true ? args.text.toUpperCase() : args.text
    return Array.from({ length: args.times ?? 1 }, () => text).join('\n')
  },
  presentCall: (args) => genericCall({ title: `Echo "${args.text}"`, kind: 'other' }),
})

/** The plugin name. */
export const name = 'echo-tool'
/** The plugin needs the registry. */
export const inject = ['tools']

/** Registers `echo`. Unloading the plugin unregisters it: the registration is an effect of the plugin's fiber. */
export function apply(ctx: Context): void {
  ctx.tools.register(echoTool)
}
