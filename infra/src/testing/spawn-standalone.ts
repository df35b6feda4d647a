import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

const root = resolve(import.meta.dirname, '../../..');
export const standaloneEntry = resolve(root, 'infra/src/standalone/main.ts');

export interface SpawnedStandalone {
  url: string;
  child: ChildProcess;
  /** Log lines (JSON) seen so far. */
  logs: string[];
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts the standalone process exactly as `npm start` does (minus the web build) on a free
 * port and resolves when it logs "listening".
 */
export function spawnStandalone(env: Record<string, string>, timeoutMs = 60_000): Promise<SpawnedStandalone> {
  const child = spawn(process.execPath, ['--import', 'tsx', standaloneEntry], {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  const stderr: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  return new Promise((ready, fail) => {
    const timer = setTimeout(() => {
      void stop('SIGKILL');
      fail(new Error(`standalone did not start in ${timeoutMs} ms:\n${logs.join('\n')}\n${stderr.join('')}`));
    }, timeoutMs);
    void exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`standalone exited with ${code}:\n${logs.join('\n')}\n${stderr.join('')}`));
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      logs.push(line);
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === 'listening' && entry.url) {
          clearTimeout(timer);
          ready({ url: entry.url, child, logs, stop });
        }
      } catch {
        // not JSON: keep it in the logs for the error message
      }
    });
  });
}
