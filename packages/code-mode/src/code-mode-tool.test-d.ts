import { describe, expectTypeOf, it } from 'vitest'
import { codeModeTool } from './code-mode-tool.js'

describe('code_mode types', () => {
  it('infers the arguments from the parameters', () => {
    expectTypeOf<Parameters<typeof codeModeTool.invoke>[0]>().toEqualTypeOf<{ text: string; times?: number }>()
  })
})
