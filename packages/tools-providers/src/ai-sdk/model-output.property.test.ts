import type { ContentBlock, ToolExecutionResult } from '@dsh/tools-core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { blockAsText } from '../step-results.js'
import { toAiSdkModelOutput } from './index.js'

const base64 = fc.constantFrom('', 'AAAA', 'iVBORw0KGgo=', 'UklGRg==')
const mime = fc.constantFrom('image/png', 'image/jpeg', 'audio/wav', 'application/pdf', 'text/plain')
const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  fc.record({ type: fc.constant('text' as const), text: fc.oneof(fc.string(), fc.constantFrom('', ' ', '  \n\t')) }),
  fc.record({ type: fc.constant('image' as const), data: base64, mimeType: mime }),
  fc.record({ type: fc.constant('audio' as const), data: base64, mimeType: mime }),
  fc.record({ type: fc.constant('resource_link' as const), uri: fc.webUrl(), name: fc.string() }),
  fc.record({ type: fc.constant('resource' as const), resource: fc.record({ uri: fc.webUrl(), text: fc.string() }) }),
  fc.record({ type: fc.constant('resource' as const), resource: fc.record({ uri: fc.webUrl(), blob: base64, mimeType: mime }) }),
)
const isMedia = (item: ContentBlock): boolean => item.type === 'image' || item.type === 'audio' || (item.type === 'resource' && 'blob' in item.resource)
const isBlank = (item: ContentBlock): boolean => item.type === 'text' && item.text.trim() === ''

describe('toAiSdkModelOutput, for every result', () => {
  it('an error result is error-text with the code first and every non-blank block, in order; a success keeps every non-blank block once, in order', () => {
    fc.assert(
      fc.property(fc.array(block, { maxLength: 6 }), fc.boolean(), fc.constantFrom('DENIED', 'INVALID_ARGS', 'TOOL_TIMEOUT'), (given, isError, code) => {
        const result: ToolExecutionResult = { callId: 'c', isError, content: given, ...(isError ? { error: { name: 'E', code } } : {}) }
        const output = toAiSdkModelOutput(result)
        // Never an empty text anywhere: the model output of a result is never blank, nor is any text part of it.
        if (output.type === 'text' || output.type === 'error-text') expect(output.value.trim()).not.toBe('')
        if (output.type === 'content') for (const part of output.value) if (part.type === 'text') expect(part.text.trim()).not.toBe('')
        const content = given.filter((item) => !isBlank(item))
        if (isError) {
          expect(output).toEqual({ type: 'error-text', value: [`Error (${code}): the tool call failed.`, ...content.map(blockAsText)].join('\n') })
        } else if (!content.some(isMedia)) {
          expect(output).toEqual({ type: 'text', value: content.length === 0 ? '(no output)' : content.map(blockAsText).join('\n') })
        } else {
          expect(output.type).toBe('content')
          const parts = output.type === 'content' ? output.value : []
          expect(parts).toHaveLength(content.length)
          parts.forEach((part, index) => {
            const source = content[index] as ContentBlock
            if (source.type === 'image') expect(part).toEqual({ type: 'image-data', data: source.data, mediaType: source.mimeType })
            else if (isMedia(source)) expect(part).toMatchObject({ type: 'file-data' })
            else expect(part).toEqual({ type: 'text', text: blockAsText(source) })
          })
        }
      }),
    )
  })
})
