// The Vercel AI SDK's own agent loop (generateText with stopWhen) over the registry's tools: aiSdkTools(ctx.tools)
// is an AI SDK ToolSet whose tools run each call through ctx.tools.execute (policy, validation, post-execute).
// `npm run example:ai-sdk` from the repository root. Always offline: the SDK's MockLanguageModelV3 plays the model
// from a script (scripted-model.ts); put a provider's model in its place to run it for real. Ctrl-C cancels the run.
import type { ToolExecutionResult } from '@dsh/tools-core'
import { aiSdkTools } from '@dsh/tools-providers/ai-sdk'
import { generateText, stepCountIs } from 'ai'
import { printCall, printContext, runLoop } from './run.js'
import { scriptedModel } from './scripted-model.js'

await runLoop("offline: a scripted model (the AI SDK's MockLanguageModelV3) plays the model", async ({ ctx, task, signal, maxSteps }) => {
  const result = await generateText({
    model: scriptedModel(),
    // A snapshot of the tools the registry shows now: build it again for each generateText call.
    tools: aiSdkTools(ctx.tools),
    prompt: task,
    stopWhen: stepCountIs(maxSteps),
    abortSignal: signal, // reaches the model call and every tool call
    onStepFinish: (step) => {
      if (step.toolCalls.length === 0) return
      console.log(`step ${step.stepNumber + 1}: ${step.toolCalls.length} tool call${step.toolCalls.length === 1 ? '' : 's'}`)
      const notes: [string, NonNullable<ToolExecutionResult['additionalContext']>][] = []
      for (const call of step.toolCalls) {
        // Every call that reached the registry has its frozen result as the output, errors (DENIED…) included.
        const output = step.toolResults.find((part) => part.toolCallId === call.toolCallId)?.output as ToolExecutionResult | undefined
        if (output !== undefined) {
          printCall(call.toolName, call.input, output)
          if (output.additionalContext !== undefined) notes.push([call.toolName, output.additionalContext])
          continue
        }
        // A call the SDK could not parse (unknown tool, input not JSON) never reaches the registry: the SDK answers it.
        const failure = step.content.find((part) => part.type === 'tool-error' && part.toolCallId === call.toolCallId)
        console.log(`  ${call.toolName} -> error (answered by the AI SDK): ${failure?.type === 'tool-error' ? String(failure.error) : 'no result'}`)
      }
      // The AI SDK has no place after a step's results: the context travels at the end of its own call's result.
      for (const [name, context] of notes) printContext(`in the ${name} result`, context)
    },
  })
  console.log(result.finishReason === 'tool-calls' ? `stopped after ${maxSteps} steps without a final answer` : `assistant: ${result.text}`)
})
