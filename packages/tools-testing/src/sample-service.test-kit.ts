// A small service for this package's own tests, standing in for a real one (like tool-bash's executor) so that
// tools-testing never depends on a tool package (tool packages depend on tools-testing for their tests).
import { Service, type Context } from 'cordis'

/** The config of {@link SampleService}. */
export interface SampleServiceConfig {
  limit?: number
}

declare module 'cordis' {
  interface Context {
    sample: SampleService
  }
}

/** A service named `sample` with a config, that hooks `process` 'exit' while it is loaded. */
export class SampleService extends Service {
  readonly limit: number

  constructor(ctx: Context, config?: SampleServiceConfig) {
    super(ctx, 'sample')
    this.limit = config?.limit ?? 10
    const onExit = (): void => {}
    ctx.effect(() => {
      process.on('exit', onExit)
      return () => void process.off('exit', onExit)
    }, 'sample exit hook')
  }
}
