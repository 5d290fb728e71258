export {
  DEFAULT_HIDDEN_HOME_PATHS,
  SANDBOX_DEFAULTS,
  resolveSandboxedBashConfig,
  type ResolvedSandboxConfig,
  type SandboxNetworkAllowList,
  type SandboxedBashConfig,
} from './sandbox-config.js'
export {
  NetworkProxy,
  PROXY_CLOSE_BOUND_MS,
  PROXY_IDLE_TIMEOUT_MS,
  PROXY_LINGER_MS,
  PROXY_PORT,
  isNetworkAllowed,
  isPrivateAddress,
  parseNetworkAllowEntry,
  proxyEnvironment,
  systemResolver,
  type NetworkAllowRule,
  type NetworkDenial,
  type NetworkProxyOptions,
  type NetworkResolver,
} from './network-proxy.js'
export { SANDBOX_ERROR_CODES } from './sandbox-error-codes.js'
export {
  ROOT_ONLY_SECRETS,
  buildSandboxProfile,
  isWithin,
  type ProfileFileSystem,
  type ProfilePathKind,
  type SandboxPolicy,
  type SandboxProfile,
  type SandboxProfileInput,
  type SandboxStub,
} from './sandbox-profile.js'
export { locateCgroups, type CgroupControllerName, type CgroupLayoutInput, type CgroupLocation, type CgroupVersion } from './cgroup-layout.js'
export { describeResourceLimits, type ResourceLimitMechanism, type SandboxResourceLimits } from './resource-limits.js'
export { SandboxSetupError } from './sandbox-setup-error.js'
export { SandboxUnavailableError, type SandboxUnavailableCause } from './sandbox-unavailable-error.js'
export { SandboxedBashExecutor } from './sandboxed-bash-executor.js'
export { inheritableDescriptors } from './inherited-descriptors.js'
export { describeSandboxPolicy, policyBlockNote } from './policy-note.js'
export {
  BPF,
  SECCOMP_AUDIT_ARCH,
  SECCOMP_DENIED_IOCTLS,
  SECCOMP_DENIED_SYSCALLS,
  SECCOMP_RET,
  SECCOMP_SOCKET,
  buildSeccompProgram,
  currentSeccompArch,
  encodeSeccompProgram,
  syscallNumber,
  type BpfInstruction,
  type SeccompArch,
  type SeccompProgramOptions,
  type SeccompSyscall,
} from './seccomp.js'
