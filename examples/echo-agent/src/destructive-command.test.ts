import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { destructiveCommandReason } from './destructive-command.js'

describe('destructiveCommandReason', () => {
  it.each([
    ['rm -rf /', '"rm -rf /" would delete the whole file system'],
    ['rm -fr /*', '"rm -rf /*" would delete the whole file system'],
    ['rm -r -f /', '"rm -rf /" would delete the whole file system'],
    ['rm --recursive --force /', '"rm -rf /" would delete the whole file system'],
    ['sudo rm -rf /', '"rm -rf /" would delete the whole file system'],
    ['/bin/rm -Rf //', '"rm -rf //" would delete the whole file system'],
    ['cd /tmp && rm -rf "/"', '"rm -rf /" would delete the whole file system'],
    ['echo hi; rm -rf ~', '"rm -rf ~" would delete the home directory'],
    ['rm -rf $HOME', '"rm -rf $HOME" would delete the home directory'],
    ['rm -rf /usr', '"rm -rf /usr" would delete the system directory /usr'],
    ['rm -rf /etc/', '"rm -rf /etc/" would delete the system directory /etc'],
    ['rm -r --no-preserve-root /', '"--no-preserve-root" exists only to delete the whole file system'],
    ['mkfs.ext4 /dev/sda1', 'formatting a file system destroys its data'],
    ['dd if=/dev/zero of=/dev/sda bs=1M', 'writing onto a device destroys its data'],
    [':(){ :|:& };:', 'a fork bomb would exhaust the machine'],
  ])('denies %s', (command, reason) => {
    expect(destructiveCommandReason(command)).toBe(reason)
  })

  it.each([
    'rm -rf build',
    'rm -rf ./dist /tmp/cache',
    'rm -f /etc/hosts.bak',
    'rm /',
    'ls -la /',
    'grep -rf patterns.txt /',
    'echo "rm -rf /"',
    'dd if=/dev/zero of=/dev/null count=1',
    'dd if=in.img of=out.img',
    'rm -rf /usr/local/share/my-app',
  ])('lets %s through', (command) => {
    expect(destructiveCommandReason(command)).toBeUndefined()
  })

  it('never flags a recursive delete of a path inside a project', () => {
    const segment = fc.stringMatching(/^[a-z0-9_.-]{1,12}$/).filter((name) => name !== '.' && name !== '..')
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), fc.constantFrom('-rf', '-fr', '-r', '-Rf'), (parts, flags) => {
        expect(destructiveCommandReason(`rm ${flags} ${parts.join('/')}`)).toBeUndefined()
        expect(destructiveCommandReason(`rm ${flags} /home/me/project/${parts.join('/')}`)).toBeUndefined()
      }),
    )
  })
})
