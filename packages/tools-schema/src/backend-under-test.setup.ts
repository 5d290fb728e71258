// Test setup (vitest.config.ts): sets the validator backend every test of this file runs against.
import { setDefaultValidatorBackend } from './validator-backend.js'

/** The backend under test, from the project (`generated` or `closures`). */
export const backendUnderTest = process.env['DSH_VALIDATOR_BACKEND'] === 'closures' ? 'closures' : 'generated'

setDefaultValidatorBackend(backendUnderTest === 'closures' ? 'closures' : 'auto')
