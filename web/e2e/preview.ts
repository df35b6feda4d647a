import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

export const WEB_DIR = resolve(import.meta.dirname, '..');

export interface Preview {
  baseUrl: string;
  stop(): Promise<void>;
}

async function waitFor(url: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

/** Serves web/dist with `vite preview` (build it first: npm run build -w @pass/web). */
export async function startPreview(port = 4173): Promise<Preview> {
  if (!existsSync(resolve(WEB_DIR, 'dist/index.html'))) {
    throw new Error('web/dist is missing: run `npm run build -w @pass/web` first');
  }
  const child: ChildProcess = spawn(
    process.execPath,
    [resolve(WEB_DIR, '../node_modules/vite/bin/vite.js'), 'preview', '--port', String(port), '--strictPort', '--host', '127.0.0.1'],
    { cwd: WEB_DIR, stdio: 'ignore' },
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitFor(baseUrl, 20_000);
  return {
    baseUrl,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}
