import { readFile } from 'node:fs/promises'

/**
 * The agent's code (dist/container-agent.cjs, one CommonJS bundle of the agent and tool-bash's local executor).
 * `DSH_CONTAINER_AGENT_BUNDLE` names another file (the package's own tests, which run from src, bundle it first).
 */
export async function readAgentSource(): Promise<string> {
  const override = process.env['DSH_CONTAINER_AGENT_BUNDLE']
  return readFile(override !== undefined && override !== '' ? override : new URL('./container-agent.cjs', import.meta.url), 'utf8')
}

/**
 * The container's command line for node: reads `<length>\n<code>` from stdin, runs the code as a CommonJS module,
 * and hands it what followed on stdin (the protocol's first messages). No file is written into the container.
 */
export const AGENT_BOOTSTRAP =
  "let b=Buffer.alloc(0);const f=c=>{b=Buffer.concat([b,c]);const n=b.indexOf(10);if(n<0)return;const l=Number(b.subarray(0,n));" +
  "if(b.length<n+1+l)return;process.stdin.off('data',f);process.stdin.pause();globalThis.__dshAgentInput=b.subarray(n+1+l);" +
  "const M=require('module');const m=new M('/dsh-agent.cjs');m.filename='/dsh-agent.cjs';m.paths=[];m._compile(b.subarray(n+1,n+1+l).toString(),'/dsh-agent.cjs')};" +
  "process.stdin.on('data',f)"
