import { readdirSync, readFileSync } from 'node:fs'

/** `O_CLOEXEC` as `/proc/<pid>/fdinfo/<fd>` shows it in its octal `flags:` line (the same on x64 and arm64). */
const O_CLOEXEC = 0o2000000

/**
 * The descriptors of this process, from `from` up, that a child would inherit: open without close-on-exec. Node opens
 * everything it makes with close-on-exec; what is left came from whoever started the process (a supervisor, a shell
 * redirection such as `7>log`, a parent's pipe) or from native code. `undefined` when `/proc/self/fdinfo` cannot be
 * read (the caller must then close every descriptor it does not mean to pass).
 */
export function inheritableDescriptors(from: number, fdinfo = '/proc/self/fdinfo'): number[] | undefined {
  let names: string[]
  try {
    names = readdirSync(fdinfo)
  } catch {
    return undefined
  }
  const found: number[] = []
  for (const name of names) {
    const fd = Number(name)
    if (!Number.isInteger(fd) || fd < from) continue
    let info: string
    try {
      info = readFileSync(`${fdinfo}/${name}`, 'utf8')
    } catch {
      continue // closed since the listing (the listing's own descriptor, for one)
    }
    const flags = /^flags:\s*([0-7]+)$/m.exec(info)
    if (flags === null || (Number.parseInt(flags[1] as string, 8) & O_CLOEXEC) === 0) found.push(fd)
  }
  return found.sort((a, b) => a - b)
}

/**
 * A launch that runs `launch` with every descriptor in `descriptors` closed first (a shell that closes them and execs
 * it), or `launch` itself when there are none. With `descriptors` `undefined` (unknown), the shell closes every
 * descriptor from `from` up that it finds open.
 */
export function closingDescriptors(
  launch: { file: string; args: readonly string[] },
  shell: string,
  descriptors: readonly number[] | undefined,
  from: number,
): { file: string; args: string[] } {
  if (descriptors !== undefined && descriptors.length === 0) return { file: launch.file, args: [...launch.args] }
  const close =
    descriptors === undefined
      ? `for fd in /proc/$$/fd/*; do fd=\${fd##*/}; [ "$fd" -ge ${from} ] && eval "exec $fd>&-"; done`
      : `exec ${descriptors.map((fd) => `${fd}>&-`).join(' ')}`
  return { file: shell, args: ['--noprofile', '--norc', '-c', `${close}\nexec "$@"`, 'dsh-sandbox-close', launch.file, ...launch.args] }
}
