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
  console.log('[start] building the web app…');
  const build = spawnSync('npm', ['run', 'build', '-w', '@pass/web'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const child = spawn(process.execPath, ['--import', 'tsx', resolve(root, 'infra/src/standalone/main.ts')], {
  cwd: root,
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
