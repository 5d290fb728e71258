import type { ContentBlock } from '@dsh/tools-core'

/**
 * The text of content blocks for display: text blocks and embedded text resources, joined so that consecutive blocks
 * start on new lines. Binary blocks are left out.
 */
export function contentText(blocks: readonly ContentBlock[]): string {
  let text = ''
  for (const block of blocks) {
    let piece: string | undefined
    if (block.type === 'text') piece = block.text
    else if (block.type === 'resource' && 'text' in block.resource) piece = block.resource.text
    if (piece === undefined) continue
    if (text.length > 0 && !text.endsWith('\n')) text += '\n'
    text += piece
  }
  return text
}
