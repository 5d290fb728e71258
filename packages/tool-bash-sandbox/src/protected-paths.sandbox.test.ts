// What the sandbox protects must stay protected across any sequence of calls (issue 33, class 1): renaming a parent,
// removing and recreating, planting a missing path, a hard link, the home as the working directory. Each attempt is a
// series of commands sent one call after another; each runs in the sandbox (blocked) and through the local executor
// (the control, which must escape, proving the attempt is real), as root and as nobody. Package-manager credential
// files and the host's key names (class 4) are checked the same way, with the home pointed at the working directory.
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_HIDDEN_HOME_PATHS } from './sandbox-config.js'
import { NOBODY, describeInSandbox, loadLocal, loadSandboxed, openMatrixHost, outputOf, runAs, type LoadedExecutor, type MatrixHost } from './test-support.js'

interface Attempt {
  readonly name: string
  /** Whether the local control can escape with this uid's rights. */
  readonly control: (uid: number) => boolean
  /** Host-side setup in the working directory, run as the uid (a shell script). */
  readonly prepare?: string
  /** The working directory of the commands, relative to the run's working directory (default: itself). */
  readonly cwd?: string
  /** The commands, one call each, in order. */
  readonly calls: (nonce: string) => readonly string[]
  readonly escaped: (work: string, output: string, nonce: string) => boolean
}

const SECRET = 'TOP-SECRET-CONTENT'
const always = (): boolean => true

/** Credential files of package managers the default list now hides (home-relative), with a token each. */
const PACKAGE_MANAGER_FILES = ['.yarnrc.yml', '.config/pip/pip.conf', '.m2/settings.xml', '.gradle/gradle.properties', '.composer/auth.json']

const ATTEMPTS: readonly Attempt[] = [
  {
    name: 'rename .git, then plant a repository with a pre-commit hook in its place',
    control: always,
    prepare: 'mkdir -p repo && cd repo && git init -q',
    cwd: 'repo',
    calls: (nonce) => [
      'mv .git .git-away 2>&1; ls -A',
      `git init -q 2>&1; printf '#!/bin/sh\\necho ${nonce}\\n' > .git/hooks/pre-commit 2>&1; chmod +x .git/hooks/pre-commit 2>&1; ls -A .git/hooks`,
    ],
    escaped: (work, _output, nonce) =>
      existsSync(join(work, 'repo/.git-away')) || readIfExists(join(work, 'repo/.git/hooks/pre-commit')).includes(nonce),
  },
  {
    name: 'rename the parent of a hidden file, then read it in the next call',
    control: always,
    prepare: `mkdir -p conf && echo ${SECRET} > conf/secret.txt`,
    calls: () => ['mv conf conf-moved 2>&1; ls -A', 'cat conf-moved/secret.txt conf/secret.txt 2>&1'],
    escaped: (_work, output) => output.includes(SECRET),
  },
  {
    name: 'rename ~/.config when the home is the working directory, then read gcloud credentials in the next call',
    control: always,
    prepare: `mkdir -p .config/gcloud && echo ${SECRET} > .config/gcloud/credentials.db`,
    calls: () => ['mv .config .cfg 2>&1; ls -A', 'cat .cfg/gcloud/credentials.db .config/gcloud/credentials.db 2>&1'],
    escaped: (_work, output) => output.includes(SECRET),
  },
  {
    name: 'replace a read-only file by renaming its parent and recreating it',
    control: always,
    prepare: "mkdir -p tools && printf 'echo build\\n' > tools/build.sh",
    calls: (nonce) => ['mv tools tools-old 2>&1; ls -A', `mkdir -p tools 2>&1; echo 'echo ${nonce}' > tools/build.sh 2>&1; cat tools/build.sh`],
    escaped: (work, _output, nonce) => readIfExists(join(work, 'tools/build.sh')).includes(nonce),
  },
  {
    name: 'remove a read-only file, then recreate it in the next call',
    control: always,
    prepare: "mkdir -p tools && printf 'echo build\\n' > tools/build.sh",
    calls: (nonce) => ['rm -f tools/build.sh 2>&1; ls tools', `echo 'echo ${nonce}' > tools/build.sh 2>&1; cat tools/build.sh`],
    escaped: (work, _output, nonce) => readIfExists(join(work, 'tools/build.sh')).includes(nonce),
  },
  {
    name: 'create a hidden path that is missing at start',
    control: always,
    calls: (nonce) => [`mkdir -p absent 2>&1; echo ${nonce} > absent/.env 2>&1; cat absent/.env 2>&1`],
    escaped: (work, _output, nonce) => readIfExists(join(work, 'absent/.env')).includes(nonce),
  },
  {
    name: 'create a read-only path that is missing at start',
    control: always,
    calls: (nonce) => [`echo ${nonce} > Makefile.local 2>&1; cat Makefile.local 2>&1`],
    escaped: (work, _output, nonce) => readIfExists(join(work, 'Makefile.local')).includes(nonce),
  },
  {
    name: 'hard-link a hidden file, then read the link',
    control: always,
    prepare: `mkdir -p conf && echo ${SECRET} > conf/secret.txt`,
    calls: () => ['ln conf/secret.txt leaked 2>&1; cp conf/secret.txt copied 2>&1; ls -A', 'cat leaked copied 2>&1'],
    escaped: (_work, output) => output.includes(SECRET),
  },
  {
    name: "read package managers' credential files in the home (yarn, pip, Maven, Gradle, Composer)",
    control: always,
    prepare: PACKAGE_MANAGER_FILES.map((file) => `mkdir -p $(dirname ${file}) && echo ${SECRET}-${file} > ${file}`).join(' && '),
    calls: () => [`cat ${PACKAGE_MANAGER_FILES.join(' ')} 2>&1`],
    escaped: (_work, output) => PACKAGE_MANAGER_FILES.some((file) => output.includes(`${SECRET}-${file}`)),
  },
  {
    name: "read the names of the host's keys (/proc/keys)",
    // Only root's keyrings show here; nobody's list is empty on the host too.
    control: (uid) => uid === 0,
    calls: () => ['cat /proc/keys /proc/key-users 2>&1'],
    escaped: (_work, output) => /keyring/.test(output),
  },
]

function readIfExists(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return ''
  }
}

const nonce = (): string => `n${Math.random().toString(36).slice(2, 10)}`

describeInSandbox(() => {
  for (const uid of [0, NOBODY]) {
    describe(`protections that survive any sequence of calls, commands as ${uid === 0 ? 'root' : 'nobody (uid 65534)'}`, () => {
      let host: MatrixHost
      let tempDir: string

      beforeAll(async () => {
        host = await openMatrixHost(uid)
        tempDir = join(host.base, 'priv')
        runAs(0, `mkdir -p ${tempDir}`, host.base)
      })

      afterAll(async () => {
        await host?.close()
      })

      /** The run's working directory for one attempt: a fresh one, owned by the uid, which is also the home. */
      const workFor = (name: string): string => {
        const work = join(host.base, `w-${name.replace(/[^a-z]+/g, '-').slice(0, 40)}`)
        runAs(0, `rm -rf ${work} && mkdir -p ${work} && chown ${uid}:${uid} ${work}`, host.base)
        return work
      }

      /** Loads an executor whose home (the default hidden paths) is `work`, as a caller working in its home. */
      const load = async (work: string, sandboxed: boolean): Promise<LoadedExecutor> => {
        const previous = process.env['HOME']
        process.env['HOME'] = work
        try {
          if (!sandboxed) return await loadLocal({ cwd: work, tempDir, shell: host.asUid('/usr/bin/bash') })
          return await loadSandboxed({
            cwd: work,
            tempDir,
            hiddenPaths: [join(work, 'conf/secret.txt'), join(work, 'absent/.env')],
            readOnlyPaths: ['tools/build.sh', 'Makefile.local'],
            bwrap: host.asUid('/usr/bin/bwrap'),
          })
        } finally {
          if (previous === undefined) delete process.env['HOME']
          else process.env['HOME'] = previous
        }
      }

      const attempt = async (entry: Attempt, sandboxed: boolean): Promise<{ escaped: boolean; output: string; left: string[] }> => {
        const work = workFor(entry.name)
        if (entry.prepare !== undefined) runAs(uid, entry.prepare, work)
        const before = readdirSync(work).sort()
        const loaded = await load(work, sandboxed)
        const token = nonce()
        let output = ''
        try {
          for (const command of entry.calls(token)) {
            const result = await loaded.bash.run({ command, cwd: entry.cwd === undefined ? undefined : join(work, entry.cwd), timeoutMs: 20_000 })
            output += `$ ${command}\n${outputOf(result)}\n`
          }
          return { escaped: entry.escaped(work, output, token), output, left: readdirSync(work).sort().filter((name) => !before.includes(name)) }
        } finally {
          await loaded.fiber.dispose()
          rmSync(work, { recursive: true, force: true })
        }
      }

      for (const entry of ATTEMPTS) {
        const controlled = entry.control(uid)
        it(`${entry.name}: blocked in the sandbox${controlled ? ', escapes the local executor' : ''}`, async () => {
          const sandbox = await attempt(entry, true)
          expect(sandbox.escaped, `escaped the sandbox; output:\n${sandbox.output}`).toBe(false)
          if (controlled) {
            const control = await attempt(entry, false)
            expect(control.escaped, `the control did not escape, so this test cannot see an escape; output:\n${control.output}`).toBe(true)
          }
        })
      }

      it('leaves no mount point behind for the missing paths it covered', async () => {
        const entry = ATTEMPTS.find(({ name }) => name === 'create a hidden path that is missing at start') as Attempt
        const sandbox = await attempt({ ...entry, calls: () => ['true'] }, true)
        // `absent/.env` and `Makefile.local` were made on the host as mount points while the command ran, and removed.
        expect(sandbox.left).toEqual([])
      })

      it('hides every default credential path, package managers included', () => {
        for (const file of PACKAGE_MANAGER_FILES) expect(DEFAULT_HIDDEN_HOME_PATHS).toContain(file)
      })
    })
  }
})
