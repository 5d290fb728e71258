import { snapshotJson, toJsonValue, NonJsonValueError, type ToolExecutionResult } from '@dsh/tools-core'

const accepted = snapshotJson({ path: '/tmp/a.txt', lines: [1, 2] })
if (accepted.ok) console.log(`frozen: ${Object.isFrozen(accepted.value)}`)

const rejected = snapshotJson({ when: new Date(0) })
if (!rejected.ok) {
  const result: ToolExecutionResult = {
    callId: 'call_1',
    content: [{ type: 'text', text: rejected.error.message }],
    isError: true,
    error: { name: 'NonJsonValueError', code: 'NON_JSON_VALUE' },
  }
  console.log(`rejected at ${rejected.error.path}: ${rejected.error.reason}`)
  void result
}

try {
  toJsonValue({ n: Number.NaN })
} catch (error) {
  if (NonJsonValueError.isInstance(error)) console.log(`code: ${error.code}`)
}
