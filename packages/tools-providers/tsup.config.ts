import { packageBuildConfig } from '../../tsup.shared.js'

// One entry per subpath of the exports map: the shared profiles and errors, one module per provider, and
// the AI SDK adapter (the only entry that imports a provider SDK at run time: `ai`, an optional peer).
export default packageBuildConfig({
  entry: {
    index: 'src/index.ts',
    'openai/index': 'src/openai/index.ts',
    'anthropic/index': 'src/anthropic/index.ts',
    'gemini/index': 'src/gemini/index.ts',
    'ai-sdk/index': 'src/ai-sdk/index.ts',
  },
})
