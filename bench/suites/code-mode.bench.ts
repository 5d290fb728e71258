// Code Mode (issue 36): one run_code program making 100 sub-calls against the same 100 calls as one model step through
// executeStep; and the cold start of a run (a fresh runtime: its first program) against a warm one.
import { readFileSync } from 'node:fs'
import { CodeMode, QuickJsRuntime } from '@dsh/code-mode'
import type { StepCall } from '@dsh/tools-registry'
import { ToolRegistry } from '@dsh/tools-registry'
import { defineTool } from '@dsh/tools-schema'
import { Context, type Fiber } from 'cordis'
import { defineSuite } from '../harness.js'

const CALLS = 100
let ctx: Context
let fiber: Fiber | undefined
let serial = 0

const PROGRAM = `let total = 0
for (let i = 0; i < ${CALLS}; i++) total += (await tools.lookup({ word: 'w' + i })).length
return total`
const STEP: StepCall[] = Array.from({ length: CALLS }, (_, index) => ({ callId: `s${index}`, name: 'lookup', arguments: { word: `w${index}` } }))

async function load(): Promise<Context> {
  const context = new Context()
  await context.plugin(ToolRegistry)
  fiber = await context.plugin(CodeMode, { maxSubCalls: 1_000 })
  context.tools.register(
    defineTool({
      name: 'lookup',
      description: 'Look a word up.',
      parameters: { word: { type: 'string', required: true } },
      output: { schema: { type: 'object', properties: { length: { type: 'integer', required: true } }, additionalProperties: false }, render: (_args, value) => String(value.length) },
      execute: ({ word }) => ({ length: word.length }),
    }),
  )
  return context
}

export default defineSuite({
  name: 'code-mode',
  description:
    '`@dsh/code-mode` with its default runtime (QuickJS in a worker thread): one `run_code` program making 100 sequential sub-calls of a trivial `defineTool` tool, each through the whole pipeline, against the same 100 calls as one model step through `executeStep` (serial: the tool is not parallel-safe). And a run of a program that makes one call, on a warm runtime (workers ready, the WebAssembly compiled) against a cold one (a fresh `QuickJsRuntime`: its first run compiles and starts a worker).',
  versions: {
    '@dsh/code-mode': JSON.parse(readFileSync(new URL('../../packages/code-mode/package.json', import.meta.url), 'utf8')).version,
    'quickjs-wasi': JSON.parse(readFileSync(new URL('../../packages/code-mode/package.json', import.meta.url), 'utf8')).dependencies['quickjs-wasi'],
  },
  async groups() {
    ctx = await load()
    const tools = ctx.tools
    const run = async (code: string): Promise<void> => {
      const result = await tools.execute({ callId: `run_${++serial}`, name: 'run_code', arguments: { code } })
      if (result.isError) throw new Error(`run_code failed: ${JSON.stringify(result.content)}`)
    }
    return [
      {
        title: `${CALLS} tool calls: one run_code program against one executeStep step`,
        baseline: 'executeStep, 100 calls',
        rounds: 3,
        options: { min_samples: 10, max_samples: 40 },
        cases: {
          'executeStep, 100 calls': async () => {
            const step = await tools.executeStep(STEP)
            if (step.results.length !== CALLS) throw new Error('step lost calls')
          },
          'run_code, 100 sub-calls': () => run(PROGRAM),
        },
      },
      {
        title: 'a run with one call: warm runtime against a cold one',
        baseline: 'warm run',
        rounds: 2,
        options: { min_samples: 10, max_samples: 30 },
        cases: {
          'warm run': () => run(`return (await tools.lookup({ word: 'tide' })).length`),
          'cold run (a fresh runtime)': async () => {
            const runtime = new QuickJsRuntime()
            const outcome = await runtime.run({
              program: `return 1`,
              tools: [],
              bridge: { call: async () => ({ ok: true, json: 'null' }), log: () => {} },
              limits: ctx.codeMode.config.limits,
              signal: new AbortController().signal,
            })
            await runtime.close()
            if (!outcome.ok) throw new Error('the cold run failed')
          },
        },
      },
    ]
  },
  async dispose() {
    await fiber?.dispose()
  },
})
