// A throwaway npm registry: verdaccio 6.8.0 on 127.0.0.1, storage in a temp folder, no uplinks (consumers scope
// only @dsh to it; cordis and the rest come from the normal registry). One user is created so `npm publish` has
// a token. stop() ends the process, checks by pid that it is gone, and removes the folder.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const serveScript = join(import.meta.dirname, 'serve-verdaccio.mjs')

function config(dir) {
  // JSON is YAML, so no YAML writer is needed.
  return JSON.stringify({
    storage: join(dir, 'storage'),
    auth: { htpasswd: { file: join(dir, 'htpasswd'), max_users: 10 } },
    uplinks: {},
    packages: {
      '@dsh/*': { access: '$all', publish: '$authenticated', unpublish: '$authenticated' },
      '**': { access: '$all', publish: '$authenticated' },
    },
    log: { type: 'stdout', format: 'pretty', level: 'error' },
  })
}

export const isAlive = (pid) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return error.code === 'EPERM'
  }
}

/** Starts the registry; resolves to { url, token, pid, stop() }. */
export async function startRegistry() {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-verdaccio-'))
  const configPath = join(dir, 'config.yaml')
  writeFileSync(configPath, config(dir))
  const child = spawn(process.execPath, [serveScript, configPath], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] })
  let output = ''
  child.stderr.on('data', (chunk) => (output += chunk))

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.stdin.end()
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000)
      await exited
      clearTimeout(timer)
    }
    if (isAlive(child.pid)) throw new Error(`verdaccio (pid ${child.pid}) is still running`)
    rmSync(dir, { recursive: true, force: true })
  }

  try {
    const port = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`verdaccio did not start within 60 s:\n${output}`)), 60_000)
      child.stdout.on('data', (chunk) => {
        output += chunk
        const match = /listening (\d+)/.exec(output)
        if (match) {
          clearTimeout(timer)
          resolve(Number(match[1]))
        }
      })
      child.once('exit', (code) => {
        clearTimeout(timer)
        reject(new Error(`verdaccio exited with ${code} before listening:\n${output}`))
      })
    })
    const url = `http://127.0.0.1:${port}/`
    const token = await addUser(url)
    return { url, token, pid: child.pid, dir, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

async function addUser(url) {
  const name = 'dsh-publisher'
  const response = await fetch(new URL(`-/user/org.couchdb.user:${name}`, url), {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, password: 'local-only-password', type: 'user', roles: [] }),
  })
  const body = await response.json()
  if (!response.ok || typeof body.token !== 'string') throw new Error(`verdaccio refused the user: ${JSON.stringify(body)}`)
  return body.token
}
