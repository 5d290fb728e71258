// Stage 7: the body runs with frozen arguments and an always-present signal; its failures keep their codes.
import { DshError, defineToolErrorCodes, errorBrand, type DshErrorCode, type ToolExecution } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import { call, createHarness, textOf, tool } from './test-kit.js'

describe('the body', () => {
  it('returns content blocks, or { content, meta }', async () => {
    const { tools } = await createHarness()
    tools.register(tool('blocks', { execute: async () => [{ type: 'text', text: 'a' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }] }))
    tools.register(tool('object', { execute: async () => ({ content: [{ type: 'text', text: 'b' }], meta: { exitCode: 0 } }) }))
    expect(await tools.execute(call('blocks', {}, { callId: 'c1' }))).toEqual({
      callId: 'c1',
      content: [{ type: 'text', text: 'a' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }],
      isError: false,
    })
    expect(await tools.execute(call('object', {}, { callId: 'c2' }))).toEqual({
      callId: 'c2',
      content: [{ type: 'text', text: 'b' }],
      isError: false,
      meta: { exitCode: 0 },
    })
  })

  it('is called as a method of its definition', async () => {
    const { tools } = await createHarness()
    const definition = {
      ...tool('self'),
      prefix: 'from this',
      async execute(this: { prefix: string }) {
        return [{ type: 'text' as const, text: this.prefix }]
      },
    }
    tools.register(definition)
    expect(textOf(await tools.execute(call('self')))).toBe('from this')
  })

  it.each([
    ['a string', 'hello'],
    ['nothing', undefined],
    ['a number', 3],
    ['an object without content', { text: 'hi' }],
    ['a malformed block', [{ type: 'text', text: 1 }]],
  ])('returning %s yields INVALID_RESULT', async (_label, value) => {
    const { tools } = await createHarness()
    tools.register(tool('bad', { execute: async () => value as never }))
    const result = await tools.execute(call('bad'))
    expect(result.error).toEqual({ name: 'InvalidToolResultError', code: 'INVALID_RESULT' })
    expect(textOf(result)).toMatch(
      /^The call to "bad" ran, but the tool returned .+, so there is no result to show\. This is a fault in the tool, not in your arguments; calling it again is unlikely to help\.$/,
    )
  })

  it('a thrown coded error keeps its { name, code } and its message', async () => {
    class ToolArgsError extends DshError {
      override readonly name = 'ToolArgsError'
    }
    const { tools } = await createHarness()
    tools.register(tool('read', { execute: async () => Promise.reject(new ToolArgsError('INVALID_ARGS', 'path must be absolute')) }))
    const result = await tools.execute(call('read'))
    expect(result).toEqual({
      callId: result.callId,
      content: [{ type: 'text', text: 'path must be absolute' }],
      isError: true,
      error: { name: 'ToolArgsError', code: 'INVALID_ARGS' },
    })
  })

  it('a branded error with a tool-owned code keeps that code unchanged', async () => {
    const FILES = defineToolErrorCodes('FILES', ['NOT_FOUND'])
    class FileNotFoundError extends DshError {
      static override readonly brand: symbol = errorBrand('FileNotFoundError')
      static override isInstance(value: unknown): value is FileNotFoundError {
        return DshError.hasBrand(value, FileNotFoundError.brand)
      }
      override readonly name: string = 'FileNotFoundError'
      constructor(path: string) {
        super(FILES.NOT_FOUND, `There is no file at "${path}".`)
      }
    }
    const { tools } = await createHarness()
    tools.register(tool('read', { execute: async () => Promise.reject(new FileNotFoundError('a.txt')) }))
    const result = await tools.execute(call('read'))
    expect(result.error).toEqual({ name: 'FileNotFoundError', code: 'FILES_NOT_FOUND' })
    expect(textOf(result)).toBe('There is no file at "a.txt".')
  })

  it.each([
    ['a lower-case code', 'files_not_found'],
    ['a code in a family reserved for core codes', 'INVALID_PATH'],
    ['a one-word code', 'NOPE'],
    ['a non-string code', 42],
  ])('a DshError with %s is not trusted: TOOL_FAILED', async (_label, code) => {
    const { tools } = await createHarness()
    tools.register(tool('read', { execute: async () => Promise.reject(new DshError(code as DshErrorCode, 'forged')) }))
    const result = await tools.execute(call('read'))
    expect(result.error).toEqual({ name: 'ToolFailedError', code: 'TOOL_FAILED' })
    expect(textOf(result)).toBe('Tool "read" failed: DshError: forged')
  })

  it('an unbranded error with a well-formed code (an errno-style error, a look-alike) is TOOL_FAILED', async () => {
    const lookAlike = Object.assign(new Error('no such file'), { code: 'FILES_NOT_FOUND', name: 'FileNotFoundError' })
    const { tools } = await createHarness()
    tools.register(tool('read', { execute: async () => Promise.reject(lookAlike) }))
    const result = await tools.execute(call('read'))
    expect(result.error).toEqual({ name: 'ToolFailedError', code: 'TOOL_FAILED' })
  })

  it('reads a thrown error\'s code once: a getter cannot pass the check with one value and report another', async () => {
    const error = new DshError('TOOL_FAILED', 'changing')
    let reads = 0
    Object.defineProperty(error, 'code', { get: () => (reads++ === 0 ? 'FILES_NOT_FOUND' : 'not a code') })
    const { tools } = await createHarness()
    tools.register(tool('read', { execute: async () => Promise.reject(error) }))
    const result = await tools.execute(call('read'))
    expect(result.error).toEqual({ name: 'DshError', code: 'FILES_NOT_FOUND' })
    expect(reads).toBe(1)
  })

  it('any other throw is TOOL_FAILED naming the thrown error', async () => {
    const { tools } = await createHarness()
    tools.register(tool('sync', { execute: () => {
      throw new RangeError('out of range')
    } }))
    tools.register(tool('value', { execute: async () => Promise.reject('just a string') }))
    const sync = await tools.execute(call('sync'))
    expect(sync.error).toEqual({ name: 'ToolFailedError', code: 'TOOL_FAILED' })
    expect(textOf(sync)).toBe('Tool "sync" failed: RangeError: out of range')
    expect(textOf(await tools.execute(call('value')))).toBe('Tool "value" failed: just a string')
  })

  it('always gets exec.signal: its own, which follows the caller\'s, or one that never fires', async () => {
    const { tools } = await createHarness()
    const signals: AbortSignal[] = []
    let abortedInBody: boolean | undefined
    const caller = new AbortController()
    tools.register(tool('read', { execute: async (_args, exec) => (signals.push(exec.signal), []) }))
    tools.register(
      tool('stop', {
        execute: async (_args, exec) => {
          caller.abort()
          abortedInBody = exec.signal.aborted
          return []
        },
      }),
    )
    await tools.execute(call('read', {}, { signal: caller.signal }))
    await tools.execute(call('read'))
    await tools.execute(call('read'))
    await tools.execute(call('stop', {}, { signal: caller.signal }))
    expect(signals[0]).toBeInstanceOf(AbortSignal)
    expect(signals[0]).not.toBe(caller.signal)
    expect(abortedInBody).toBe(true)
    expect(signals[1]).toBeInstanceOf(AbortSignal)
    expect(signals[1]?.aborted).toBe(false)
    expect(signals[2]).not.toBe(signals[1])
  })
})

describe('cancellation: ABORTED_BEFORE_DISPATCH before the body runs, ABORTED after', () => {
  it('a signal aborted before the call skips policy and the body', async () => {
    const { ctx, tools } = await createHarness()
    const read = tool('read')
    tools.register(read)
    const asked: string[] = []
    ctx.on('tools/pre-execute', (_exec, next) => (asked.push('pre-execute'), next()))
    tools.guard(() => void asked.push('guard'))
    const result = await tools.execute(call('read', {}, { signal: AbortSignal.abort() }))
    expect(result.error).toEqual({ name: 'ToolAbortedError', code: 'ABORTED_BEFORE_DISPATCH' })
    expect(textOf(result)).toBe('The call to "read" was cancelled before it ran; nothing was executed.')
    expect(asked).toEqual([])
    expect(read.calls).toEqual([])
  })

  it('a signal aborted during policy stops the call before dispatch', async () => {
    const { ctx, tools } = await createHarness()
    const read = tool('read')
    tools.register(read)
    const controller = new AbortController()
    ctx.on('tools/pre-execute', (_exec, next) => (controller.abort(), next()))
    const result = await tools.execute(call('read', {}, { signal: controller.signal }))
    expect(result.error?.code).toBe('ABORTED_BEFORE_DISPATCH')
    expect(read.calls).toEqual([])
  })

  it('a body that fails after the signal fired is ABORTED', async () => {
    const { tools } = await createHarness()
    const controller = new AbortController()
    tools.register(
      tool('sleep', {
        execute: (_args, exec: ToolExecution) =>
          new Promise((_resolve, reject) => {
            exec.signal.addEventListener('abort', () => reject(exec.signal.reason))
            controller.abort(new DOMException('stop', 'AbortError'))
          }),
      }),
    )
    const result = await tools.execute(call('sleep', {}, { signal: controller.signal }))
    expect(result.error).toEqual({ name: 'ToolAbortedError', code: 'ABORTED' })
    expect(textOf(result)).toBe('The call to "sleep" was cancelled while it ran.')
  })

  it('a body that finishes despite the signal keeps its result', async () => {
    const { tools } = await createHarness()
    const controller = new AbortController()
    tools.register(tool('quick', { execute: async () => (controller.abort(), [{ type: 'text', text: 'done anyway' }]) }))
    const result = await tools.execute(call('quick', {}, { signal: controller.signal }))
    expect(result.isError).toBe(false)
    expect(textOf(result)).toBe('done anyway')
  })

  it('a coded error thrown after the abort keeps its code', async () => {
    const { tools } = await createHarness()
    const controller = new AbortController()
    tools.register(
      tool('slow', {
        execute: async () => {
          controller.abort()
          throw new DshError('TOOL_TIMEOUT', 'took too long')
        },
      }),
    )
    expect((await tools.execute(call('slow', {}, { signal: controller.signal }))).error).toEqual({ name: 'DshError', code: 'TOOL_TIMEOUT' })
  })
})
