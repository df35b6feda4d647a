/**
 * The production front of the distributed layout (infra/deploy/Caddyfile, which compose runs)
 * for the benches, when a `caddy` binary is installed (`apt-get install caddy`). Without it the
 * benches measure through the Node proxy instead and say so: that proxy costs more CPU per
 * request, which the bench machine's two shared cores then cannot spend on the services.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '@pass/events/test-support';

export interface RunningCaddy {
  url: string;
  pid: number;
  version: string;
  stop(): Promise<void>;
}

const CADDYFILE = new URL('../infra/deploy/Caddyfile', import.meta.url);

/** `caddy version`'s first word (e.g. "v2.6.2"), or undefined when caddy is not on PATH. */
export function caddyVersion(): string | undefined {
  const probe = spawnSync('caddy', ['version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) return undefined;
  return probe.stdout.trim().split(/\s+/)[0];
}


/** host:port of a URL, as Caddy's upstream lists take them. */
const upstream = (url: string) => new URL(url).host;

/**
 * The deploy Caddyfile as written, on free loopback ports over plain HTTP, with the admin API
 * off (several benches may run Caddy at once) and, before Caddy 2.7, without the one directive
 * that version lacks (stream_close_delay, which only matters across config reloads).
 */
export async function startCaddy(options: { commandApiUrl: string; queryApiUrls: string[]; dir: string }): Promise<RunningCaddy | undefined> {
  const version = caddyVersion();
  if (!version) return undefined;
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  let caddyfile = readFileSync(CADDYFILE, 'utf8');
  if (major === 2 && minor < 7) caddyfile = caddyfile.replace(/^\s*stream_close_delay .*$/m, '');
  const file = join(options.dir, 'Caddyfile');
  writeFileSync(file, `{\n\tadmin off\n}\n${caddyfile}`);
  const port = await freePort();
  // The internal command front binds its own free port, not compose's 3001 (benches may run at once).
  const commandFront = await freePort();
  const child: ChildProcess = spawn('caddy', ['run', '--config', file, '--adapter', 'caddyfile'], {
    env: {
      ...process.env,
      SITE_ADDRESS: `http://127.0.0.1:${port}`,
      COMMAND_FRONT_ADDRESS: `http://127.0.0.1:${commandFront}`,
      COMMAND_API_UPSTREAMS: upstream(options.commandApiUrl),
      QUERY_API_UPSTREAMS: options.queryApiUrls.map(upstream).join(' '),
      XDG_DATA_HOME: join(options.dir, 'caddy-data'),
      XDG_CONFIG_HOME: join(options.dir, 'caddy-config'),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4_000)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`caddy exited with ${child.exitCode}: ${stderr}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`caddy did not answer /healthz within 10 s: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid!,
    version,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((done) => child.once('exit', () => done()));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
