import { expectTypeOf, it } from 'vitest'
import type { HttpServeOptions, ServedTaskOptions, ToolServerOptions } from './index.js'

it('takes tasks options, or false to serve none', () => {
  expectTypeOf<ToolServerOptions['tasks']>().toEqualTypeOf<ServedTaskOptions | false | undefined>()
  expectTypeOf<{ tasks: false }>().toMatchTypeOf<HttpServeOptions>()
  expectTypeOf<{ tasks: { autoBackgroundAfterMs: 300; ttlMs: 60_000; maxRunningTasks: 4 } }>().toMatchTypeOf<HttpServeOptions>()
  expectTypeOf<{ tasks: true }>().not.toMatchTypeOf<HttpServeOptions>()
  expectTypeOf<{ tasks: { ttl: 1 } }>().not.toMatchTypeOf<ToolServerOptions>()
})
