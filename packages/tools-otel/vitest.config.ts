import { packageTestConfig } from '../../vitest.shared.js'

export default packageTestConfig(import.meta.dirname)
