#!/usr/bin/env node
// `npm start`: build the web app when its sources are newer than the last build, then run the
// standalone process (command-api + projector + query-api + web on one origin).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const web = resolve(root, 'web');

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry === 'dist' || entry === 'e2e') continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

const builtIndex = resolve(web, 'dist/index.html');
const webExists = existsSync(resolve(web, 'index.html'));
const sources = Math.max(newestMtime(resolve(web, 'src')), newestMtime(resolve(web, 'index.html')), newestMtime(resolve(web, 'public')), newestMtime(resolve(root, 'events/src')));
if (webExists && !process.env.WEB_DIST_DIR && (!existsSync(builtIndex) || statSync(builtIndex).mtimeMs < sources)) {
  // Vite's own output (a line per chunk) is shown only when the build fails.
  const firstBuild = !existsSync(builtIndex);
  console.log(`[start] Building the web app into web/dist (${firstBuild ? 'first start' : 'its sources changed'}; 20 s to a minute)…`);
  const startedAt = Date.now();
  const build = spawnSync('npm', ['run', 'build', '-w', '@pass/web'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (build.status !== 0) {
    process.stdout.write(build.stdout ?? '');
    process.stderr.write(build.stderr ?? '');
    console.error(`[start] The web app did not build (${build.error?.message ?? `exit code ${build.status}`}): see above.`);
    process.exit(build.status ?? 1);
  }
  console.log(`[start] Web app built in ${Math.round((Date.now() - startedAt) / 1000)} s. Starting the server…`);
}

// Node's flags for the standalone process: STANDALONE_NODE_FLAGS in infra/src/services/node-flags.ts
// says why (node-flags.test.ts holds this line to it).
const NODE_FLAGS = ['--max-semi-space-size=64', '--heap-growing-percent=40'];

// The IPC channel carries the server's "listening" and "stopping" notices (infra/src/wiring/process.ts).
const child = spawn(process.execPath, [...NODE_FLAGS, '--import', 'tsx', resolve(root, 'infra/src/standalone/main.ts')], {
  cwd: root,
  stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
});
let childStopping = false;
child.on('message', (message) => {
  if (message?.type === 'stopping') childStopping = true;
  if (message?.type === 'listening') console.log(`[start] Serving on ${message.url}`);
});

/**
 * How long a signal waits before it is passed on. A signal to the process group (Ctrl-C in a
 * terminal, `kill -TERM -<pgid>`, most supervisors) reaches the server too, which then says it is
 * stopping: passing it on as well would be a second signal. One sent to this process alone
 * (`kill -TERM <pid>`) is passed on after the wait. Should one be passed on anyway (a server too
 * busy to answer in time), it receives it as a repeat and ignores it.
 */
const FORWARD_AFTER_MS = 250;
let forwarding = false;
const forward = (signal) => {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
};
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    // Already stopping: a later signal is the server's to judge (a repeat is ignored; one well
    // after the first makes it exit at once).
    if (childStopping) return forward(signal);
    if (forwarding) return;
    forwarding = true;
    setTimeout(() => {
      forwarding = false;
      if (!childStopping) forward(signal);
    }, FORWARD_AFTER_MS);
  });
}
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
