import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  BPF,
  SECCOMP_AUDIT_ARCH,
  SECCOMP_DENIED_IOCTLS,
  SECCOMP_DENIED_SYSCALLS,
  SECCOMP_RET,
  SECCOMP_SOCKET,
  buildSeccompProgram,
  encodeSeccompProgram,
  syscallNumber,
  type BpfInstruction,
  type SeccompArch,
  type SeccompSyscall,
} from './seccomp.js'

interface SeccompData {
  nr: number
  arch: number
  args: readonly number[]
}

/** A classic-BPF interpreter for the instructions the assembler emits: what the kernel would return. */
function evaluate(program: readonly BpfInstruction[], data: SeccompData): number {
  const word = (offset: number): number => {
    if (offset === 0) return data.nr >>> 0
    if (offset === 4) return data.arch >>> 0
    const index = (offset - 16) / 8
    if (offset >= 16 && Number.isInteger(index)) return (data.args[index] ?? 0) >>> 0
    throw new Error(`unexpected load offset ${offset}`)
  }
  let accumulator = 0
  for (let pc = 0; pc < program.length; pc++) {
    const { code, jt, jf, k } = program[pc] as BpfInstruction
    if (code === BPF.LD_W_ABS) accumulator = word(k)
    else if (code === BPF.JEQ_K) pc += accumulator === k ? jt : jf
    else if (code === BPF.JGE_K) pc += accumulator >= k ? jt : jf
    else if (code === BPF.AND_K) accumulator = (accumulator & k) >>> 0
    else if (code === BPF.RET_K) return k
    else throw new Error(`unexpected opcode ${code}`)
  }
  throw new Error('the program fell off its end')
}

const ARCHES: SeccompArch[] = ['x64', 'arm64']
const EPERM = SECCOMP_RET.ERRNO | 1

describe('the seccomp denylist', () => {
  it.each(ARCHES)('refuses every denied call with EPERM on %s', (arch) => {
    const program = buildSeccompProgram(arch)
    for (const name of SECCOMP_DENIED_SYSCALLS) {
      const nr = syscallNumber(arch, name)
      expect(evaluate(program, { nr, arch: SECCOMP_AUDIT_ARCH[arch], args: [] }), name).toBe(EPERM)
    }
  })

  it.each(ARCHES)('allows every other call on %s (property over all syscall numbers)', (arch) => {
    const program = buildSeccompProgram(arch)
    const special = new Set(
      [...SECCOMP_DENIED_SYSCALLS, 'clone3', 'socket', 'socketpair'].map((name) => syscallNumber(arch, name as SeccompSyscall)),
    )
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1023 }), fc.array(fc.nat(), { maxLength: 6 }), (nr, args) => {
        fc.pre(!special.has(nr) && nr !== syscallNumber(arch, 'ioctl'))
        expect(evaluate(program, { nr, arch: SECCOMP_AUDIT_ARCH[arch], args })).toBe(SECCOMP_RET.ALLOW)
      }),
      { numRuns: 2_000 },
    )
  })

  it.each(ARCHES)('kills on a foreign architecture on %s', (arch) => {
    const program = buildSeccompProgram(arch)
    fc.assert(
      fc.property(fc.nat(), fc.integer({ min: 0, max: 1023 }), (foreign, nr) => {
        fc.pre(foreign !== SECCOMP_AUDIT_ARCH[arch])
        expect(evaluate(program, { nr, arch: foreign, args: [] })).toBe(SECCOMP_RET.KILL_PROCESS)
      }),
    )
  })

  it('kills x32 calls on x86-64 (a second syscall table the denylist would not cover)', () => {
    const program = buildSeccompProgram('x64')
    const x32Ptrace = 0x40000000 + 521
    expect(evaluate(program, { nr: x32Ptrace, arch: SECCOMP_AUDIT_ARCH.x64, args: [] })).toBe(SECCOMP_RET.KILL_PROCESS)
  })

  it.each(ARCHES)('answers clone3 with ENOSYS so libc falls back to clone on %s', (arch) => {
    const nr = syscallNumber(arch, 'clone3')
    expect(evaluate(buildSeccompProgram(arch), { nr, arch: SECCOMP_AUDIT_ARCH[arch], args: [] })).toBe(
      SECCOMP_RET.ERRNO | 38,
    )
  })

  it.each(ARCHES)('refuses the TTY injection ioctls and allows every other ioctl on %s', (arch) => {
    const program = buildSeccompProgram(arch)
    const nr = syscallNumber(arch, 'ioctl')
    const base = { nr, arch: SECCOMP_AUDIT_ARCH[arch] }
    expect(evaluate(program, { ...base, args: [1, SECCOMP_DENIED_IOCTLS.TIOCSTI] })).toBe(EPERM)
    expect(evaluate(program, { ...base, args: [0, SECCOMP_DENIED_IOCTLS.TIOCLINUX] })).toBe(EPERM)
    fc.assert(
      fc.property(fc.nat(), fc.nat(), (fd, request) => {
        fc.pre(request !== SECCOMP_DENIED_IOCTLS.TIOCSTI && request !== SECCOMP_DENIED_IOCTLS.TIOCLINUX)
        expect(evaluate(program, { ...base, args: [fd, request] })).toBe(SECCOMP_RET.ALLOW)
      }),
    )
  })

  it.each(ARCHES)('refuses socket(AF_UNIX) and socket(AF_VSOCK) of every type and flag, and allows every other domain, on %s', (arch) => {
    const program = buildSeccompProgram(arch)
    const nr = syscallNumber(arch, 'socket')
    const base = { nr, arch: SECCOMP_AUDIT_ARCH[arch] }
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.integer({ min: 0, max: 0xffff_ffff }), (type, protocol, high) => {
        // Only the low 32 bits of the domain count (the kernel reads an int); a high half is ignored.
        expect(evaluate(program, { ...base, args: [SECCOMP_SOCKET.AF_UNIX, type, protocol] })).toBe(EPERM)
        expect(evaluate(program, { ...base, args: [SECCOMP_SOCKET.AF_VSOCK, type, protocol] })).toBe(EPERM)
        const refused = high === SECCOMP_SOCKET.AF_UNIX || high === SECCOMP_SOCKET.AF_VSOCK
        expect(evaluate(program, { ...base, args: [high, type, protocol] })).toBe(refused ? EPERM : SECCOMP_RET.ALLOW)
      }),
    )
    for (const domain of [2, 10, 16, 17]) expect(evaluate(program, { ...base, args: [domain, 1, 0] }), `domain ${domain}`).toBe(SECCOMP_RET.ALLOW)
  })

  it.each(ARCHES)('refuses socketpair(AF_UNIX, SOCK_DGRAM) (it could sendto a host socket) and allows stream and seqpacket pairs on %s', (arch) => {
    const program = buildSeccompProgram(arch)
    const nr = syscallNumber(arch, 'socketpair')
    const base = { nr, arch: SECCOMP_AUDIT_ARCH[arch] }
    const flags = fc.constantFrom(0, 0x800, 0x80000, 0x80800) // SOCK_NONBLOCK, SOCK_CLOEXEC
    fc.assert(
      fc.property(flags, (flag) => {
        expect(evaluate(program, { ...base, args: [SECCOMP_SOCKET.AF_UNIX, SECCOMP_SOCKET.SOCK_DGRAM | flag, 0] })).toBe(EPERM)
        expect(evaluate(program, { ...base, args: [SECCOMP_SOCKET.AF_UNIX, 1 | flag, 0] })).toBe(SECCOMP_RET.ALLOW)
        expect(evaluate(program, { ...base, args: [SECCOMP_SOCKET.AF_UNIX, 5 | flag, 0] })).toBe(SECCOMP_RET.ALLOW)
      }),
    )
  })

  it.each(ARCHES)('with allowUnixSockets, unix sockets pass and every other rule stands on %s', (arch) => {
    const program = buildSeccompProgram(arch, { allowUnixSockets: true })
    const at = { arch: SECCOMP_AUDIT_ARCH[arch] }
    expect(evaluate(program, { ...at, nr: syscallNumber(arch, 'socket'), args: [SECCOMP_SOCKET.AF_UNIX, 1, 0] })).toBe(SECCOMP_RET.ALLOW)
    expect(evaluate(program, { ...at, nr: syscallNumber(arch, 'socketpair'), args: [SECCOMP_SOCKET.AF_UNIX, 2, 0] })).toBe(SECCOMP_RET.ALLOW)
    // vsock is refused whatever the options: the network namespace does not confine it.
    expect(evaluate(program, { ...at, nr: syscallNumber(arch, 'socket'), args: [SECCOMP_SOCKET.AF_VSOCK, 1, 0] })).toBe(EPERM)
    expect(evaluate(program, { ...at, nr: syscallNumber(arch, 'socket'), args: [2, 1, 0] })).toBe(SECCOMP_RET.ALLOW)
    for (const name of SECCOMP_DENIED_SYSCALLS) expect(evaluate(program, { ...at, nr: syscallNumber(arch, name), args: [] }), name).toBe(EPERM)
  })

  it.each(ARCHES)('denies io_uring whole (IORING_OP_SOCKET would make a unix socket past the socket rule) on %s', (arch) => {
    for (const allowUnixSockets of [false, true]) {
      const program = buildSeccompProgram(arch, { allowUnixSockets })
      for (const name of ['io_uring_setup', 'io_uring_enter', 'io_uring_register'] as const) {
        expect(evaluate(program, { nr: syscallNumber(arch, name), arch: SECCOMP_AUDIT_ARCH[arch], args: [] }), name).toBe(EPERM)
      }
    }
  })

  it('kills socketcall, which exists only in the 32-bit ABIs (i386 on x86-64, AArch32 on arm64)', () => {
    const I386 = 0x40000003
    const ARM = 0x40000028
    expect(evaluate(buildSeccompProgram('x64'), { nr: 102, arch: I386, args: [1, 0, 0] })).toBe(SECCOMP_RET.KILL_PROCESS)
    expect(evaluate(buildSeccompProgram('arm64'), { nr: 290, arch: ARM, args: [1, 0, 0] })).toBe(SECCOMP_RET.KILL_PROCESS)
  })

  it('encodes each instruction as 8 little-endian bytes (code u16, jt u8, jf u8, k u32)', () => {
    const program = buildSeccompProgram('x64')
    const bytes = encodeSeccompProgram(program)
    expect(bytes.length).toBe(program.length * 8)
    expect(program.length).toBeLessThan(4096) // BPF_MAXINSNS
    program.forEach((instruction, index) => {
      expect({
        code: bytes.readUInt16LE(index * 8),
        jt: bytes.readUInt8(index * 8 + 2),
        jf: bytes.readUInt8(index * 8 + 3),
        k: bytes.readUInt32LE(index * 8 + 4),
      }).toEqual(instruction)
    })
    // The first instruction loads seccomp_data.arch: 0x20 00 00 00 04 00 00 00.
    expect([...bytes.subarray(0, 8)]).toEqual([0x20, 0, 0, 0, 4, 0, 0, 0])
  })

  it('gives every denied call a distinct number on each architecture (a typo would shadow another rule)', () => {
    for (const arch of ARCHES) {
      const numbers = SECCOMP_DENIED_SYSCALLS.map((name) => syscallNumber(arch, name))
      expect(new Set(numbers).size).toBe(numbers.length)
    }
  })
})
