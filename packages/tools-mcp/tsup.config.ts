import { packageBuildConfig } from '../../tsup.shared.js'

// Two entries: the client plugin, and `/server` (the only one that imports `@modelcontextprotocol/server`,
// an optional peer).
export default packageBuildConfig({ entry: { index: 'src/index.ts', 'server/index': 'src/server/index.ts' } })
