/**
 * Why a shell command must not run, or `undefined`. It recognises the commands that destroy a machine rather than
 * a project: a recursive forced `rm` of `/`, `/*`, the home directory or a top-level system directory, `mkfs`, `dd`
 * onto a device, and the classic fork bomb.
 *
 * This is a guard, the last line of defence for obvious accidents, not a shell parser: a determined command
 * (`eval`, variables, `find -delete`) gets past any such list. The boundary that holds against those is a
 * sandboxing executor behind `ctx.bash`.
 */
export function destructiveCommandReason(command: string): string | undefined {
  if (/:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:/.test(command)) return 'a fork bomb would exhaust the machine'
  for (const segment of command.split(/&&|\|\||[;|&\n]/)) {
    const words = segment.trim().split(/\s+/).filter((word) => word !== '')
    while (words[0] === 'sudo' || words[0] === 'command' || words[0] === 'exec' || words[0]?.includes('=') === true) words.shift()
    const [program, ...rest] = words
    if (program === undefined) continue
    const base = program.slice(program.lastIndexOf('/') + 1)
    if (base === 'rm') {
      const reason = rmReason(rest)
      if (reason !== undefined) return reason
    } else if (base === 'mkfs' || base.startsWith('mkfs.')) {
      return 'formatting a file system destroys its data'
    } else if (base === 'dd' && rest.some((word) => /^of=\/dev\/(?!null$|zero$|stdout$|stderr$)/.test(word))) {
      return 'writing onto a device destroys its data'
    }
  }
  return undefined
}

const SYSTEM_DIRECTORIES = new Set(['bin', 'boot', 'dev', 'etc', 'home', 'lib', 'lib64', 'opt', 'proc', 'root', 'sbin', 'srv', 'sys', 'usr', 'var'])

function rmReason(args: readonly string[]): string | undefined {
  let recursive = false
  let force = false
  const targets: string[] = []
  let options = true
  for (const arg of args) {
    if (options && arg === '--') options = false
    else if (options && arg.startsWith('--')) {
      if (arg === '--recursive') recursive = true
      if (arg === '--force') force = true
      if (arg === '--no-preserve-root') return '"--no-preserve-root" exists only to delete the whole file system'
    } else if (options && arg.startsWith('-') && arg.length > 1) {
      if (/[rR]/.test(arg)) recursive = true
      if (arg.includes('f')) force = true
    } else targets.push(arg.replace(/^(['"])(.*)\1$/, '$2'))
  }
  if (!recursive) return undefined
  for (const target of targets) {
    const path = target.replace(/\/+$/, '') || '/'
    if (path === '/' || path === '/*' || path === '/.' || path === '/..') {
      return `"rm -r${force ? 'f' : ''} ${target}" would delete the whole file system`
    }
    if (path === '~' || path === '$HOME' || path === '${HOME}' || path === '~/*' || path === '$HOME/*') {
      return `"rm -r${force ? 'f' : ''} ${target}" would delete the home directory`
    }
    const top = /^\/([^/]+)(\/\*)?$/.exec(path)
    if (top?.[1] !== undefined && SYSTEM_DIRECTORIES.has(top[1])) {
      return `"rm -r${force ? 'f' : ''} ${target}" would delete the system directory /${top[1]}`
    }
  }
  return undefined
}
