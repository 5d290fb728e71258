export type { ContainerFacts } from './agent-protocol.js'
export {
  CONTAINER_DEFAULTS,
  resolveContainerBashConfig,
  type ContainerBashConfig,
  type ContainerMount,
  type ContainerNetworkAllowList,
  type ResolvedContainerBashConfig,
} from './container-config.js'
export { ContainerBashExecutor } from './container-bash-executor.js'
export { CONTAINER_ERROR_CODES } from './container-error-codes.js'
export { OWNER_LABEL, SESSION_LABEL, type ContainerEngineKind, type SweptContainer } from './container-session.js'
export { ContainerUnavailableError, type ContainerUnavailableCause } from './container-unavailable-error.js'
export { ENGINE_API_VERSION, type ContainerEngineEndpoint } from './engine-client.js'
export { CONTAINER_DENIED_SYSCALLS, containerSeccompProfile } from './seccomp-profile.js'

/** The executor, also as the default export (a cordis plugin). */
export { ContainerBashExecutor as default } from './container-bash-executor.js'
