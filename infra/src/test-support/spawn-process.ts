import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

import { SERVICE_NODE_FLAGS, STANDALONE_NODE_FLAGS, type ServiceName } from '../services/node-flags';

export type { ServiceName };
const root = resolve(import.meta.dirname, '../../..');
export const serviceEntry = (name: ServiceName) => resolve(root, `infra/src/services/${name}.ts`);
export const standaloneEntry = resolve(root, 'infra/src/standalone/main.ts');

export interface SpawnedService {
  name: string;
  url: string;
  child: ChildProcess;
  /** Its log lines: the first 500 and the last 2,000 (all of them with `keepAllLogs`). */
  readonly logs: string[];
  /** Anything written to stderr (crashes; logs go to stdout). */
  stderr: string[];
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts one service entry point as its own process (what `npm run start:<service>` runs) and
 * resolves with its URL when it logs "listening".
 */
export interface SpawnOptions {
  /**
   * Keep every log line (a bench that writes them out). By default only the first 500 and the
   * last 2,000 are kept: a bench's hundreds of thousands of access lines would grow its heap,
   * and its collections then pause the very clients whose latency it measures.
   */
  keepAllLogs?: boolean;
  /** Another checkout of the product to run (a release: release.ts), instead of this one. */
  root?: string;
}

interface EntryOptions extends SpawnOptions {
  /** Node's own flags (the service's SERVICE_NODE_FLAGS). */
  nodeFlags?: readonly string[];
}

export function spawnService(name: ServiceName, env: Record<string, string>, timeoutMs = 45_000, options: SpawnOptions = {}): Promise<SpawnedService> {
  const entry = options.root ? resolve(options.root, `infra/src/services/${name}.ts`) : serviceEntry(name);
  return spawnEntry(name, entry, env, timeoutMs, { ...options, nodeFlags: SERVICE_NODE_FLAGS[name] });
}

/** The standalone process, as `npm start` runs it (minus the web build). */
export function spawnStandalone(env: Record<string, string>, timeoutMs = 60_000, options: { nodeFlags?: string[] } = {}): Promise<SpawnedService> {
  // Its own flags first: a bench's flags to try come after them, and V8 takes the last of each.
  return spawnEntry('standalone', standaloneEntry, env, timeoutMs, { ...options, nodeFlags: [...STANDALONE_NODE_FLAGS, ...(options.nodeFlags ?? [])] });
}

const HEAD_LINES = 500;
const TAIL_LINES = 2_000;

/** Log lines as kept: all of them, or a head and a bounded tail. */
function logBook(keepAll: boolean) {
  const head: string[] = [];
  let tail: string[] = [];
  return {
    push(line: string) {
      if (keepAll || head.length < HEAD_LINES) return void head.push(line);
      tail.push(line);
      // Trimmed in steps, so a line costs O(1) on average.
      if (tail.length >= 2 * TAIL_LINES) tail = tail.slice(-TAIL_LINES);
    },
    lines: () => (tail.length === 0 ? head : [...head, ...tail.slice(-TAIL_LINES)]),
  };
}

function spawnEntry(name: string, entry: string, env: Record<string, string>, timeoutMs: number, options: EntryOptions = {}): Promise<SpawnedService> {
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), '--import', 'tsx', entry], {
    cwd: options.root ?? root,
    env: { ...process.env, PORT: '0', PROJECTOR_PORT: '0', IMAGE_WORKER_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', NODE_ENV: 'test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const book = logBook(options.keepAllLogs ?? false);
  const stderr: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  const tail = () => `${book.lines().slice(-30).join('\n')}\n${stderr.join('')}`;
  return new Promise((ready, fail) => {
    const timer = setTimeout(() => {
      void stop('SIGKILL');
      fail(new Error(`${name} did not start in ${timeoutMs} ms:\n${tail()}`));
    }, timeoutMs);
    void exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`${name} exited with ${code}:\n${tail()}`));
    });
    let listening = false;
    createInterface({ input: child.stdout! }).on('line', (line) => {
      book.push(line);
      if (listening || !line.includes('"listening"')) return;
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === 'listening' && entry.url) {
          clearTimeout(timer);
          listening = true;
          ready({
            name,
            url: entry.url,
            child,
            get logs() {
              return book.lines();
            },
            stderr,
            stop,
          });
        }
      } catch {
        // not JSON: kept for the error message
      }
    });
  });
}
