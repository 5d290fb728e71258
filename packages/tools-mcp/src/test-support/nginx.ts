// A real nginx (Debian's package) for the multi-replica tests, started and stopped by the test on loopback with a
// configuration and temp directories of its own (`-p <prefix>`; no system service, nothing outside the prefix).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The nginx binary: on PATH, or Debian's /usr/sbin/nginx; `undefined` when it is not installed. */
export function findNginx(): string | undefined {
  for (const candidate of ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx']) if (existsSync(candidate)) return candidate
  const which = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' })
  const found = which.stdout.trim()
  return which.status === 0 && found !== '' ? found : undefined
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

/**
 * The configuration the reference page shows ("Serving to many agents"), with the test's ports and prefix: round
 * robin over the replicas; SSE passed through unbuffered with a long read timeout (the replicas' heartbeats keep
 * streams alive); a request is passed to the next replica only when it could not be sent (`error timeout`, never
 * `non_idempotent`), so a call is never sent twice.
 */
export function nginxConfig(options: { readonly prefix: string; readonly port: number; readonly upstreams: readonly number[] }): string {
  const { prefix } = options
  return `daemon off;
worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
events { worker_connections 512; }
http {
  access_log off;
  client_body_temp_path ${prefix}/tmp/body;
  proxy_temp_path ${prefix}/tmp/proxy;
  fastcgi_temp_path ${prefix}/tmp/fastcgi;
  uwsgi_temp_path ${prefix}/tmp/uwsgi;
  scgi_temp_path ${prefix}/tmp/scgi;
  upstream mcp_replicas {
${options.upstreams.map((port) => `    server 127.0.0.1:${port} max_fails=1 fail_timeout=2s;`).join('\n')}
    keepalive 32;
  }
  server {
    listen 127.0.0.1:${options.port};
    client_max_body_size 4m;
    location / {
      proxy_pass http://mcp_replicas;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_cache off;
      proxy_read_timeout 1h;
      proxy_send_timeout 1h;
      proxy_next_upstream error timeout;
      proxy_next_upstream_tries 3;
    }
  }
}
`
}

export interface RunningNginx {
  readonly url: string
  readonly process: ChildProcess
  errorLog(): string
  stop(): Promise<void>
}

/** Starts nginx in the foreground (its master is this child) and waits until it accepts connections. */
export async function startNginx(binary: string, upstreams: readonly number[]): Promise<RunningNginx> {
  const prefix = mkdtempSync(join(tmpdir(), 'dsh-nginx-'))
  mkdirSync(join(prefix, 'tmp'))
  // nginx's workers run as an unprivileged user when the master is root: they must be able to write the temp dirs.
  chmodSync(prefix, 0o755)
  chmodSync(join(prefix, 'tmp'), 0o777)
  const port = await freePort()
  writeFileSync(join(prefix, 'nginx.conf'), nginxConfig({ prefix, port, upstreams }))
  const child = spawn(binary, ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-e', join(prefix, 'error.log')], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const errorLog = () => {
    try {
      return readFileSync(join(prefix, 'error.log'), 'utf8')
    } catch {
      return ''
    }
  }
  const deadline = Date.now() + 10_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited at start (${child.exitCode}): ${stderr}${errorLog()}`)
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      () => true,
      () => false,
    )
    if (up) break
    if (Date.now() > deadline) throw new Error(`nginx did not accept connections within 10 s: ${stderr}${errorLog()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    process: child,
    errorLog,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGQUIT')
        const timer = setTimeout(() => child.kill('SIGKILL'), 3_000)
        await exited
        clearTimeout(timer)
      }
      rmSync(prefix, { recursive: true, force: true })
    },
  }
}
