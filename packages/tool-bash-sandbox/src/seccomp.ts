/**
 * A classic-BPF seccomp program, assembled here (no native helper): bubblewrap loads it from a file descriptor
 * (`--seccomp FD`) after setting `no_new_privs`. It is a denylist on top of the namespaces and the dropped
 * capabilities: the calls below fail with `EPERM` (so programs report "Operation not permitted" instead of
 * dying), `clone3` fails with `ENOSYS` (so libc falls back to `clone`, whose flags the kernel checks against the
 * user namespace), the TTY injection ioctls fail, and a foreign architecture or the x32 ABI kills the process.
 *
 * Unix sockets: `socket(AF_UNIX, …)` of every type fails with `EPERM`, so a command cannot connect to a host socket
 * wherever it lies (read-only mounts do not stop `connect()`), and so does `socketpair(AF_UNIX, SOCK_DGRAM)`, whose
 * unbound datagram sockets could `sendto()`/`connect()` to any host datagram socket by path. Connected stream and
 * seqpacket pairs stay allowed (pipes of node, python and libuv are made of them; they cannot be re-connected).
 * `socket(AF_VSOCK, …)` fails with `EPERM` too, whatever the options: vsock is not confined by the network namespace,
 * so a command in a VM could otherwise reach the hypervisor host's services (an agent, a metadata service).
 * There is no other way to make one: `socketcall` exists only in the 32-bit ABIs (i386 on x86-64, AArch32 on arm64),
 * which the architecture check kills, and `io_uring` (whose `IORING_OP_SOCKET` makes sockets) is denied whole.
 */

/** The architectures the program can be built for (`process.arch` names). */
export type SeccompArch = 'x64' | 'arm64'

/** The calls the denylist refuses with EPERM, by name. */
export const SECCOMP_DENIED_SYSCALLS = Object.freeze([
  'ptrace',
  'process_vm_readv',
  'process_vm_writev',
  'mount',
  'umount2',
  'pivot_root',
  'fsopen',
  'fsconfig',
  'fsmount',
  'fspick',
  'move_mount',
  'open_tree',
  'mount_setattr',
  'unshare',
  'setns',
  'keyctl',
  'add_key',
  'request_key',
  'bpf',
  'perf_event_open',
  'userfaultfd',
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
  'init_module',
  'finit_module',
  'delete_module',
  'kexec_load',
  'kexec_file_load',
  'open_by_handle_at',
  'name_to_handle_at',
  'swapon',
  'swapoff',
  'reboot',
  'syslog',
  'acct',
  'quotactl',
  'personality',
] as const)

/** A syscall name the program knows. */
export type SeccompSyscall = (typeof SECCOMP_DENIED_SYSCALLS)[number] | 'clone3' | 'ioctl' | 'socket' | 'socketpair'

const NUMBERS: Readonly<Record<SeccompArch, Readonly<Record<SeccompSyscall, number>>>> = {
  x64: {
    ptrace: 101, process_vm_readv: 310, process_vm_writev: 311, mount: 165, umount2: 166, pivot_root: 155,
    fsopen: 430, fsconfig: 431, fsmount: 432, fspick: 433, move_mount: 429, open_tree: 428, mount_setattr: 442,
    unshare: 272, setns: 308, keyctl: 250, add_key: 248, request_key: 249, bpf: 321, perf_event_open: 298,
    userfaultfd: 323, io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427, init_module: 175,
    finit_module: 313, delete_module: 176, kexec_load: 246, kexec_file_load: 320, open_by_handle_at: 304,
    name_to_handle_at: 303, swapon: 167, swapoff: 168, reboot: 169, syslog: 103, acct: 163, quotactl: 179,
    personality: 135, clone3: 435, ioctl: 16, socket: 41, socketpair: 53,
  },
  arm64: {
    ptrace: 117, process_vm_readv: 270, process_vm_writev: 271, mount: 40, umount2: 39, pivot_root: 41,
    fsopen: 430, fsconfig: 431, fsmount: 432, fspick: 433, move_mount: 429, open_tree: 428, mount_setattr: 442,
    unshare: 97, setns: 268, keyctl: 219, add_key: 217, request_key: 218, bpf: 280, perf_event_open: 241,
    userfaultfd: 282, io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427, init_module: 105,
    finit_module: 273, delete_module: 106, kexec_load: 104, kexec_file_load: 294, open_by_handle_at: 265,
    name_to_handle_at: 264, swapon: 224, swapoff: 225, reboot: 142, syslog: 116, acct: 89, quotactl: 60,
    personality: 92, clone3: 435, ioctl: 29, socket: 198, socketpair: 199,
  },
}

/** `AUDIT_ARCH_*` of each architecture (`seccomp_data.arch`). */
export const SECCOMP_AUDIT_ARCH: Readonly<Record<SeccompArch, number>> = { x64: 0xc000003e, arm64: 0xc00000b7 }

/** `TIOCSTI` (push a byte into a terminal's input) and `TIOCLINUX` (console tricks, including selection paste). */
export const SECCOMP_DENIED_IOCTLS = Object.freeze({ TIOCSTI: 0x5412, TIOCLINUX: 0x541c })

/** BPF opcodes used (linux/bpf_common.h). */
export const BPF = Object.freeze({
  LD_W_ABS: 0x20, // BPF_LD | BPF_W | BPF_ABS
  JEQ_K: 0x15, // BPF_JMP | BPF_JEQ | BPF_K
  JGE_K: 0x35, // BPF_JMP | BPF_JGE | BPF_K
  AND_K: 0x54, // BPF_ALU | BPF_AND | BPF_K
  RET_K: 0x06, // BPF_RET | BPF_K
})

/** Seccomp return values (linux/seccomp.h). */
export const SECCOMP_RET = Object.freeze({
  KILL_PROCESS: 0x80000000,
  ERRNO: 0x00050000,
  ALLOW: 0x7fff0000,
})

const EPERM = 1
const ENOSYS = 38
/** Offsets in `struct seccomp_data`: nr, arch, then args[] (64-bit each; the low half first on little endian). */
const OFFSET_NR = 0
const OFFSET_ARCH = 4
const OFFSET_ARG0_LOW = 16
const OFFSET_ARG1_LOW = 24
/**
 * `AF_UNIX` and `AF_VSOCK` (socket domains) and `SOCK_DGRAM` (socket type; the low 4 bits, without
 * `SOCK_NONBLOCK`/`SOCK_CLOEXEC`).
 */
export const SECCOMP_SOCKET = Object.freeze({ AF_UNIX: 1, AF_VSOCK: 40, SOCK_DGRAM: 2, TYPE_MASK: 0xf })
/** x32 syscalls have this bit set in `nr` on x86-64. */
const X32_SYSCALL_BIT = 0x40000000

/** One `struct sock_filter`. */
export interface BpfInstruction {
  readonly code: number
  readonly jt: number
  readonly jf: number
  readonly k: number
}

/** The number of `name` on `arch`. */
export function syscallNumber(arch: SeccompArch, name: SeccompSyscall): number {
  return NUMBERS[arch][name]
}

/** The architecture of this process, or `undefined` when the program cannot be built for it. */
export function currentSeccompArch(): SeccompArch | undefined {
  return process.arch === 'x64' || process.arch === 'arm64' ? process.arch : undefined
}

/** Options of {@link buildSeccompProgram}. */
export interface SeccompProgramOptions {
  /**
   * Let commands make unix sockets (`socket(AF_UNIX)`, datagram socket pairs): the deployment's opt-out for commands
   * that need their own (a database on a socket in the workdir). Host sockets outside the hidden paths are then
   * reachable. Default: false.
   */
  readonly allowUnixSockets?: boolean | undefined
}

/** The denylist program for `arch`, as instructions (see {@link encodeSeccompProgram} for the bytes). */
export function buildSeccompProgram(arch: SeccompArch, options: SeccompProgramOptions = {}): BpfInstruction[] {
  const insn = (code: number, k: number, jt = 0, jf = 0): BpfInstruction => ({ code, jt, jf, k: k >>> 0 })
  const ret = (value: number): BpfInstruction => insn(BPF.RET_K, value)
  const program: BpfInstruction[] = [
    insn(BPF.LD_W_ABS, OFFSET_ARCH),
    insn(BPF.JEQ_K, SECCOMP_AUDIT_ARCH[arch], 1, 0),
    ret(SECCOMP_RET.KILL_PROCESS),
    insn(BPF.LD_W_ABS, OFFSET_NR),
  ]
  if (arch === 'x64') program.push(insn(BPF.JGE_K, X32_SYSCALL_BIT, 0, 1), ret(SECCOMP_RET.KILL_PROCESS))
  for (const name of SECCOMP_DENIED_SYSCALLS) {
    program.push(insn(BPF.JEQ_K, syscallNumber(arch, name), 0, 1), ret(SECCOMP_RET.ERRNO | EPERM))
  }
  program.push(insn(BPF.JEQ_K, syscallNumber(arch, 'clone3'), 0, 1), ret(SECCOMP_RET.ERRNO | ENOSYS))
  // socket(): the refused domains. Each block ends in a return: the accumulator no longer holds the call number once
  // an argument is loaded.
  const refused = options.allowUnixSockets === true ? [SECCOMP_SOCKET.AF_VSOCK] : [SECCOMP_SOCKET.AF_VSOCK, SECCOMP_SOCKET.AF_UNIX]
  program.push(insn(BPF.JEQ_K, syscallNumber(arch, 'socket'), 0, refused.length + 3), insn(BPF.LD_W_ABS, OFFSET_ARG0_LOW))
  refused.forEach((domain, index) => program.push(insn(BPF.JEQ_K, domain, refused.length - index, 0)))
  program.push(ret(SECCOMP_RET.ALLOW), ret(SECCOMP_RET.ERRNO | EPERM))
  if (options.allowUnixSockets !== true) {
    program.push(
      insn(BPF.JEQ_K, syscallNumber(arch, 'socketpair'), 0, 7),
      insn(BPF.LD_W_ABS, OFFSET_ARG0_LOW),
      insn(BPF.JEQ_K, SECCOMP_SOCKET.AF_UNIX, 0, 4),
      insn(BPF.LD_W_ABS, OFFSET_ARG1_LOW),
      insn(BPF.AND_K, SECCOMP_SOCKET.TYPE_MASK),
      insn(BPF.JEQ_K, SECCOMP_SOCKET.SOCK_DGRAM, 0, 1),
      ret(SECCOMP_RET.ERRNO | EPERM),
      ret(SECCOMP_RET.ALLOW),
    )
  }
  // ioctl: look at the request (args[1], its low 32 bits: ioctl request numbers fit in them).
  program.push(
    insn(BPF.JEQ_K, syscallNumber(arch, 'ioctl'), 0, 4),
    insn(BPF.LD_W_ABS, OFFSET_ARG1_LOW),
    insn(BPF.JEQ_K, SECCOMP_DENIED_IOCTLS.TIOCSTI, 1, 0),
    insn(BPF.JEQ_K, SECCOMP_DENIED_IOCTLS.TIOCLINUX, 0, 1),
    ret(SECCOMP_RET.ERRNO | EPERM),
    ret(SECCOMP_RET.ALLOW),
  )
  return program
}

/** The bytes bubblewrap reads from `--seccomp FD`: each instruction as `u16 code, u8 jt, u8 jf, u32 k`, little endian. */
export function encodeSeccompProgram(program: readonly BpfInstruction[]): Buffer {
  const bytes = Buffer.alloc(program.length * 8)
  program.forEach((instruction, index) => {
    bytes.writeUInt16LE(instruction.code, index * 8)
    bytes.writeUInt8(instruction.jt, index * 8 + 2)
    bytes.writeUInt8(instruction.jf, index * 8 + 3)
    bytes.writeUInt32LE(instruction.k >>> 0, index * 8 + 4)
  })
  return bytes
}
