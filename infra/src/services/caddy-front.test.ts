import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, recordSkippedSuite } from '@pass/events/test-support';
import { listen } from '../wiring/http';

/**
 * infra/deploy/Caddyfile as compose runs it, in front of two stand-in command-apis: commands
 * reach both through the public site and through the internal command front (query-api's
 * COMMAND_API_URL), and go on being answered, none lost, when one instance dies. The internal
 * front passes on its caller's X-Forwarded-For (members' limits count members, not query-api);
 * the public site never believes a client's own. Needs a `caddy` binary (Debian's 2.6 here).
 */
const caddyfile = resolve(import.meta.dirname, '../../deploy/Caddyfile');
const version = spawnSync('caddy', ['version'], { encoding: 'utf8' });
const hasCaddy = !version.error && version.status === 0;
if (!hasCaddy) recordSkippedSuite('Caddyfile: commands over two command-apis', 'caddy not installed (apt-get install caddy)');

interface Answer {
  status: number;
  name?: string;
  forwardedFor?: string | null;
  forwardedHost?: string | null;
}

/** A command-api stand-in: ready, and answering every command with its name and the X-Forwarded-* it got. */
function commandApi(name: string): Server {
  return createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const forwarded = { forwardedFor: req.headers['x-forwarded-for'] ?? null, forwardedHost: req.headers['x-forwarded-host'] ?? null };
      res.end(req.url === '/readyz' ? '{"status":"ready"}' : JSON.stringify({ name, ...forwarded }));
    });
  });
}

/** The deploy Caddyfile with the admin API off and, before Caddy 2.7, without the directive it lacks. */
function runnableCaddyfile(dir: string): string {
  const [major = 0, minor = 0] = version.stdout.trim().replace(/^v/, '').split('.').map(Number);
  let text = readFileSync(caddyfile, 'utf8');
  if (major === 2 && minor < 7) text = text.replace(/^\s*stream_close_delay .*$/m, '');
  const file = join(dir, 'Caddyfile');
  writeFileSync(file, `{\n\tadmin off\n}\n${text}`);
  return file;
}

/** A command as query-api's gateway or the Node proxy sends it: on behalf of a client, for the public site. */
async function post(url: string): Promise<Answer> {
  const headers = { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.7', 'x-forwarded-host': 'pass.example' };
  const res = await fetch(`${url}/api/chat-messages`, { method: 'POST', headers, body: '{"text":"hi"}' });
  const text = await res.text();
  return res.status === 200 ? { status: res.status, ...(JSON.parse(text) as Omit<Answer, 'status'>) } : { status: res.status };
}

async function answered(url: string): Promise<void> {
  for (const deadline = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 100))) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within 10 s`);
  }
}

describe.skipIf(!hasCaddy)('the Caddyfile in front of two command-apis', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pass-caddy-front-'));
  const instances = { 'command-api-1': commandApi('command-api-1'), 'command-api-2': commandApi('command-api-2') };
  let caddy: ChildProcess;
  let site: string;
  let front: string;

  beforeAll(async () => {
    const upstreams = await Promise.all(Object.values(instances).map(async (server) => new URL(await listen(server, '127.0.0.1', 0)).host));
    const [sitePort, frontPort, queryPort] = await Promise.all([freePort(), freePort(), freePort()]);
    site = `http://127.0.0.1:${sitePort}`;
    front = `http://127.0.0.1:${frontPort}`;
    // As compose runs it: no host in the front's address, so any Host (proxy:3001) is served.
    caddy = spawn('caddy', ['run', '--config', runnableCaddyfile(dir), '--adapter', 'caddyfile'], {
      env: {
        ...process.env,
        SITE_ADDRESS: site,
        COMMAND_FRONT_ADDRESS: `http://:${frontPort}`,
        COMMAND_API_UPSTREAMS: upstreams.join(' '),
        QUERY_API_UPSTREAMS: `127.0.0.1:${queryPort}`,
        XDG_DATA_HOME: join(dir, 'data'),
        XDG_CONFIG_HOME: join(dir, 'config'),
      },
      stdio: 'ignore',
    });
    await answered(`${site}/healthz`);
  }, 20_000);

  afterAll(async () => {
    caddy?.kill('SIGKILL');
    for (const server of Object.values(instances)) server.closeAllConnections();
    await Promise.all(Object.values(instances).map((server) => new Promise((done) => server.close(done))));
    rmSync(dir, { recursive: true, force: true });
  });

  it('spreads commands over both instances, from the public site and the internal front', async () => {
    for (const url of [site, front]) {
      const answers = await Promise.all(Array.from({ length: 24 }, () => post(url)));
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
      expect(new Set(answers.map((a) => a.name))).toEqual(new Set(Object.keys(instances)));
    }
  });

  it("passes on the internal caller's client and public host, and ignores a public client's own", async () => {
    // The client's address counts in members' limits; the public host in the CSRF check of the Node proxy's writes.
    expect(await post(front)).toMatchObject({ forwardedFor: expect.stringMatching(/^203\.0\.113\.7, /), forwardedHost: 'pass.example' });
    const direct = await post(site);
    expect(direct.forwardedFor).not.toContain('203.0.113.7');
    expect(direct.forwardedHost).not.toBe('pass.example');
  });

  it('loses at most the one command that found an instance dead, before any health check has noticed', async () => {
    const dead = instances['command-api-1'];
    dead.closeAllConnections();
    await new Promise((done) => dead.close(done));
    const answers: Answer[] = [];
    for (let i = 0; i < 12; i++) for (const url of [site, front]) answers.push(await post(url));
    // That one is a 502 (never applied: nothing answered it); the other instance is never taken
    // out of rotation with it (a 503 "no upstreams" would say so).
    const failed = answers.filter((a) => a.status !== 200);
    expect(failed.length, JSON.stringify(failed)).toBeLessThanOrEqual(1);
    expect(failed.every((a) => a.status === 502)).toBe(true);
    expect(answers.filter((a) => a.status === 200).every((a) => a.name === 'command-api-2')).toBe(true);
  });
});
