import type { BashResult } from '@dsh/tool-bash'
import { isWithin, type SandboxPolicy } from './sandbox-profile.js'

/** A sentence for the model saying what a sandboxed command may do (the tool description carries it). */
export function describeSandboxPolicy(policy: SandboxPolicy, allowedHosts: readonly string[] = []): string {
  const network =
    allowedHosts.length === 0
      ? 'the network is off (no downloads, no package installs from the network)'
      : `the network is reachable only through an HTTP proxy (HTTP_PROXY/HTTPS_PROXY are set) and only for ${allowedHosts.join(', ')}; other hosts get 403`
  const roots = policy.writableRoots.join(', ')
  return (
    `Commands run in a sandbox: they can read most of the file system but write only under ${roots} and /tmp ` +
    `(a private /tmp, fresh for each command, as is $HOME; keep what must last in ${policy.writableRoots[0]})` +
    `${policy.protectGit ? '; .git/hooks and .git/config stay read-only and no new .git can be created there' : ''}; ` +
    `credentials such as ~/.ssh are hidden; ${network}; ` +
    'no process outlives its command. This policy is fixed by the deployment and cannot be changed from a command.'
  )
}

const READ_ONLY = /read-only file system/i
const NOT_PERMITTED = /operation not permitted/i
const NETWORK = /connect tunnel failed, response 403|blocked-by-allowlist|blocked by the sandbox network policy|could not resolve host|temporary failure in name resolution|eai_again|getaddrinfo|name or service not known|network is unreachable|enetunreach|no address associated with hostname/i
/** `…/some/path…: Permission denied` as coreutils, bash and most tools print it. */
const DENIED_PATH = /(\/[^\s:'"`]*)['"`]?: (?:[^\n]*: )?permission denied/gi

/**
 * The note added to a failed command's result when its output looks like a policy block: a write to a read-only
 * file system, "Operation not permitted" (a dropped capability or the seccomp denylist), "Permission denied" on a
 * path outside the writable roots, or a name-resolution / unreachable-network failure or a proxy refusal (403).
 * A heuristic (the kernel gives no "denied by sandbox" signal), so it says "looks like"; `undefined` when the
 * command succeeded, was stopped by the executor, or printed nothing of the kind.
 */
export function policyBlockNote(
  result: BashResult,
  policy: SandboxPolicy,
  allowedHosts: readonly string[] = [],
): string | undefined {
  if (result.exitCode === 0 || result.stopReason !== null) return undefined
  const text = [result.stderr.head, result.stderr.tail, result.stdout.head, result.stdout.tail].join('\n')
  const writable = [...policy.writableRoots, '/tmp']
  let kind: 'write' | 'network' | undefined
  if (READ_ONLY.test(text) || NOT_PERMITTED.test(text)) kind = 'write'
  else if (NETWORK.test(text)) kind = 'network'
  else {
    for (const match of text.matchAll(DENIED_PATH)) {
      const path = match[1] as string
      if (!writable.some((root) => isWithin(path, root))) kind = 'write'
    }
  }
  if (kind === undefined) return undefined
  const what =
    kind === 'network'
      ? allowedHosts.length === 0
        ? 'the network is off in this sandbox'
        : `this sandbox reaches only ${allowedHosts.join(', ')}, through its proxy`
      : `this sandbox lets commands write only under ${writable.join(', ')}, and refuses privileged operations`
  return (
    `Note: the failure above looks like a sandbox policy block, not a bug in the command: ${what}. ` +
    'The policy cannot be changed from here; work within it (for example, write under the working directory) or ' +
    'tell the user what you could not do.'
  )
}
