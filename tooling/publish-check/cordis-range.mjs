// The rule for every cordis range we publish: a peer range admits the release candidate we test with and every
// later 4.x (so a host on cordis 4.0.0 is not refused once it ships), never 3.x (no waterfall, no fibers) or 5.x;
// the dev dependency stays pinned to the exact version the tests ran with.
import semver from 'semver'

const admitted = ['4.0.0-rc.10', '4.0.0', '4.1.0', '4.99.0']
const refused = ['3.18.1', '3.0.0', '4.0.0-rc.9', '5.0.0', '5.0.0-rc.1']

/** The problems of one package.json's cordis ranges (empty when it follows the rule or has no cordis). */
export function cordisRangeProblems(json, pinned) {
  const problems = []
  const peer = json.peerDependencies?.cordis
  if (peer !== undefined) {
    if (semver.validRange(peer) === null) problems.push(`peerDependencies.cordis "${peer}" is not a semver range`)
    else {
      // npm's default matching (no includePrerelease) is what a user's install goes through.
      for (const version of admitted) {
        if (!semver.satisfies(version, peer)) problems.push(`peerDependencies.cordis "${peer}" refuses cordis ${version}`)
      }
      for (const version of refused) {
        // includePrerelease here: a range must not admit an older rc or a 5.0 prerelease even for a user who opts in.
        if (semver.satisfies(version, peer, { includePrerelease: true })) {
          problems.push(`peerDependencies.cordis "${peer}" admits cordis ${version}`)
        }
      }
    }
  }
  const dev = json.devDependencies?.cordis
  if (peer !== undefined && dev !== pinned) problems.push(`devDependencies.cordis must be pinned to ${pinned}, found ${dev}`)
  return problems
}
