import { packageBuildConfig } from '../../tsup.shared.js'

export default packageBuildConfig()
