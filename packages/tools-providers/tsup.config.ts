import { packageBuildConfig } from '../../tsup.shared.js'

// One entry per subpath of the exports map: the shared profiles and errors, and one module per provider.
export default packageBuildConfig({
  entry: {
    index: 'src/index.ts',
    'openai/index': 'src/openai/index.ts',
    'anthropic/index': 'src/anthropic/index.ts',
    'gemini/index': 'src/gemini/index.ts',
  },
})
