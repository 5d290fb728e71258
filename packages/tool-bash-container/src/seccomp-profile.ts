/** Syscalls the session container's seccomp profile refuses (EPERM): namespaces, mounts, keyrings, eBPF, io_uring, modules, and the like. */
export const CONTAINER_DENIED_SYSCALLS: readonly string[] = Object.freeze([
  'unshare', 'setns', 'mount', 'umount', 'umount2', 'pivot_root', 'chroot', 'move_mount', 'open_tree', 'fsopen', 'fsconfig',
  'fsmount', 'fspick', 'mount_setattr', 'keyctl', 'add_key', 'request_key', 'bpf', 'userfaultfd', 'perf_event_open',
  'io_uring_setup', 'io_uring_enter', 'io_uring_register', 'kexec_load', 'kexec_file_load', 'init_module', 'finit_module',
  'delete_module', 'open_by_handle_at', 'name_to_handle_at', 'acct', 'quotactl', 'swapon', 'swapoff', 'reboot',
  'settimeofday', 'clock_settime', 'clock_adjtime', 'adjtimex', 'syslog', 'iopl', 'ioperm', 'vhangup', 'lookup_dcookie',
  'fanotify_init', 'nfsservctl', 'uselib',
])

const CLONE_NEWUSER = 0x1000_0000

/**
 * The seccomp profile (the engine's JSON format) every session container gets: allow by default, refuse the
 * {@link CONTAINER_DENIED_SYSCALLS}, `clone` with `CLONE_NEWUSER` (a new user namespace), and `clone3` with
 * `ENOSYS` (its flags live in memory a filter cannot read; libc falls back to `clone`). Podman 4.3's own default
 * lets a capability-less container create user namespaces; Docker's refuses them; this profile refuses them on both.
 * With every capability dropped, the syscalls an engine's default profile adds to this list need a capability anyway.
 */
export function containerSeccompProfile(): Record<string, unknown> {
  return {
    defaultAction: 'SCMP_ACT_ALLOW',
    syscalls: [
      { names: [...CONTAINER_DENIED_SYSCALLS], action: 'SCMP_ACT_ERRNO', errnoRet: 1 },
      { names: ['clone'], action: 'SCMP_ACT_ERRNO', errnoRet: 1, args: [{ index: 0, value: CLONE_NEWUSER, valueTwo: CLONE_NEWUSER, op: 'SCMP_CMP_MASKED_EQ' }] },
      { names: ['clone3'], action: 'SCMP_ACT_ERRNO', errnoRet: 38 },
    ],
  }
}
