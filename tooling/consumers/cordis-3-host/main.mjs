// A host that got cordis 3 (what a plain `npm install cordis` gives, or a peer conflict forced through with
// --legacy-peer-deps): every plugin of ours must refuse to start with a message naming the package, the version
// found and the one needed, instead of failing later with `TypeError: schema is not a function`.
// Plain JavaScript: cordis 3's types are not what ours are written against, so there is nothing to type-check.
import { TimeoutPolicy } from '@dsh/timeout-policy'
import { LocalBashTools } from '@dsh/tool-bash'
import { ToolRegistry } from '@dsh/tools-registry'
import { Context } from 'cordis'

const ctx = new Context()
for (const plugin of [ToolRegistry, LocalBashTools, TimeoutPolicy]) {
  try {
    await ctx.plugin(plugin)
  } catch (error) {
    // cordis 3 logs a failing plugin; a rejection is as good, as long as it is ours.
    console.log(`rejected: ${error?.name}: ${error?.message}`)
  }
}
console.log(`ctx.tools after load: ${typeof ctx.tools}`)
