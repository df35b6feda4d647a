#!/usr/bin/env node
// `npm test`: typecheck, lint, then every vitest project, then one summary. Suites whose server
// cannot be reached record themselves (events/src/test-support/services.ts) and are listed as
// SKIPPED here, loudly. Exits non-zero on any failure.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const results = resolve(root, '.test-results');
rmSync(results, { recursive: true, force: true });
mkdirSync(results, { recursive: true });
const env = { ...process.env, TEST_RESULTS_DIR: results };

const canConnect = (port) =>
  new Promise((done) => {
    const s = connect({ host: '127.0.0.1', port });
    const end = (ok) => (s.destroy(), done(ok));
    s.setTimeout(1000, () => end(false));
    s.once('connect', () => end(true));
    s.once('error', () => end(false));
  });

const run = (cmd, args, opts = {}) => spawnSync(cmd, args, { stdio: 'inherit', cwd: root, env, ...opts });
const quiet = (cmd, args) => spawnSync(cmd, args, { stdio: 'ignore', shell: false });

// Services the suites use. Start the machine's own servers if they are installed but stopped.
async function ensureService(name, port, startCommands) {
  if (await canConnect(port)) return true;
  for (const [cmd, ...args] of startCommands) quiet(cmd, args);
  for (let i = 0; i < 20; i++) {
    if (await canConnect(port)) return true;
    await new Promise((r) => setTimeout(r, 500));
  }
  console.warn(`[test] ${name} is not reachable on 127.0.0.1:${port}; its suites will be SKIPPED`);
  return false;
}

if (!process.env.TEST_POSTGRES_URL) {
  await ensureService('PostgreSQL', 5432, [
    ['sh', '-c', 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql | head -1) main start'],
  ]);
}
if (!process.env.TEST_REDIS_URL) {
  await ensureService('Redis', 6379, [
    ['redis-server', '--daemonize', 'yes', '--bind', '127.0.0.1', '--port', '6379', '--save', '', '--appendonly', 'no'],
  ]);
}

// Browser suites drive Debian's Chromium; install it when missing (we are root on the project's
// machines). If that fails, the browser suites record themselves as SKIPPED.
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (existsSync(resolve(root, 'web/e2e')) && !existsSync(chromium) && process.getuid?.() === 0) {
  console.log('[test] installing Debian chromium for the browser suites');
  const apt = (args) => spawnSync('apt-get', args, { stdio: 'inherit', env: { ...env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (apt(['update']).status === 0) apt(['install', '-y', '--no-install-recommends', 'chromium']);
  if (!existsSync(chromium)) console.warn('[test] chromium could not be installed; browser suites will be SKIPPED');
}

// The observability suite checks the alert rules and /metrics with promtool (Debian's prometheus
// package); install it when missing, as for chromium. Without it that suite is SKIPPED.
const promtool = process.env.PROMTOOL_PATH ?? '/usr/bin/promtool';
if (existsSync(resolve(root, 'infra/deploy/observability')) && !existsSync(promtool) && process.getuid?.() === 0) {
  console.log('[test] installing Debian prometheus (promtool) for the alert rule tests');
  const apt = (args) => spawnSync('apt-get', args, { stdio: 'inherit', env: { ...env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (apt(['install', '-y', '--no-install-recommends', 'prometheus']).status !== 0 && apt(['update']).status === 0) {
    apt(['install', '-y', '--no-install-recommends', 'prometheus']);
  }
  if (!existsSync(promtool)) console.warn('[test] promtool could not be installed; the alert rule suites will be SKIPPED');
}

const steps = [];
const typecheck = run('npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']);
steps.push(['typecheck', typecheck.status === 0]);
if (existsSync(resolve(root, 'web/tsconfig.json'))) {
  const webTypes = run('npx', ['tsc', '-p', 'web/tsconfig.json', '--noEmit']);
  steps.push(['typecheck web', webTypes.status === 0]);
}

const lint = run('npx', ['eslint', '.']);
steps.push(['lint', lint.status === 0]);

// The browser suite drives the built web app (web/dist) on the standalone server.
if (existsSync(resolve(root, 'web/e2e'))) {
  const webBuild = run('npm', ['run', 'build', '-w', '@pass/web'], { stdio: ['ignore', 'ignore', 'inherit'] });
  steps.push(['build web', webBuild.status === 0]);
}

const jsonFile = resolve(results, 'vitest.json');
const vitest = run('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${jsonFile}`]);
steps.push(['vitest', vitest.status === 0]);

let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(jsonFile)) {
  const report = JSON.parse(readFileSync(jsonFile, 'utf8'));
  passed = report.numPassedTests ?? 0;
  // Failed tests, plus files that failed without a failed test (an import or hook error).
  const brokenFiles = (report.testResults ?? []).filter(
    (file) => file.status === 'failed' && !(file.assertionResults ?? []).some((t) => t.status === 'failed'),
  ).length;
  failed = (report.numFailedTests ?? 0) + brokenFiles;
  skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
} else {
  failed += 1;
}

console.log('\n==================== test summary ====================');
for (const [name, ok] of steps) console.log(`${ok ? 'ok     ' : 'FAILED '} ${name}`);
const skippedFile = resolve(results, 'skipped-suites.txt');
if (existsSync(skippedFile)) {
  const seen = new Set();
  for (const line of readFileSync(skippedFile, 'utf8').split('\n').filter(Boolean)) {
    if (seen.has(line)) continue;
    seen.add(line);
    const [suite, reason] = line.split('\t');
    console.log(`SKIPPED: ${suite} (${reason})`);
  }
}
const stepFailures = steps.filter(([, ok]) => !ok).length;
// A failed step with no failed test (the type checker) still counts as one failure.
console.log(`${passed} passed, ${failed + (failed === 0 ? stepFailures : 0)} failed, ${skipped} skipped`);
process.exit(stepFailures > 0 || failed > 0 ? 1 : 0);
