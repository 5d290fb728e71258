// A host that got cordis 3 (what a plain `npm install cordis` gives, or a peer conflict forced through with
// --legacy-peer-deps): every plugin of ours must refuse to start with a message naming the package, the version
// found and the one needed, instead of failing later with `TypeError: schema is not a function`. cordis 3 only logs
// a plugin that fails and `ctx.plugin` returns normally (awaited or not), so a service we provide (`ctx.tools`,
// `ctx.bash`) must throw that error when read, never be `undefined` on the host's next line.
// Plain JavaScript: cordis 3's types are not what ours are written against, so there is nothing to type-check.
import { TimeoutPolicy } from '@dsh/timeout-policy'
import { LocalBashExecutor, LocalBashTools } from '@dsh/tool-bash'
import { ToolRegistry } from '@dsh/tools-registry'
import { Context } from 'cordis'

function read(ctx, service) {
  try {
    return `${typeof ctx[service]} (no error)`
  } catch (error) {
    return `threw ${error?.name} ${error?.code}: ${error?.message}`
  }
}

const ctx = new Context()
for (const plugin of [ToolRegistry, LocalBashTools, TimeoutPolicy]) {
  try {
    await ctx.plugin(plugin)
  } catch (error) {
    // cordis 3 logs a failing plugin; a rejection is as good, as long as it is ours.
    console.log(`rejected: ${error?.name}: ${error?.message}`)
  }
}
console.log(`ctx.tools after await: ${read(ctx, 'tools')}`)

// The same without `await`, and from inside a plugin's own context.
const unawaited = new Context()
unawaited.plugin(ToolRegistry)
console.log(`ctx.tools without await: ${read(unawaited, 'tools')}`)
unawaited.plugin({ name: 'host-plugin', apply: (pluginCtx) => console.log(`ctx.tools in a plugin: ${read(pluginCtx, 'tools')}`) })

const executorHost = new Context()
await executorHost.plugin(LocalBashExecutor)
console.log(`ctx.bash after await: ${read(executorHost, 'bash')}`)
