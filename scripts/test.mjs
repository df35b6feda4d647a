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

// Suites that drive a Debian tool (Chromium for the browser suites, promtool for the alert rules,
// caddy for the Caddyfile) install it when missing: we are root on the project's machines. If that
// fails, those suites record themselves as SKIPPED.
const aptInstall = (pkg) => {
  const apt = (args) => spawnSync('apt-get', args, { stdio: 'inherit', env: { ...env, DEBIAN_FRONTEND: 'noninteractive' } });
  const install = () => apt(['install', '-y', '--no-install-recommends', pkg]).status === 0;
  // Try from the package lists at hand first; a fresh machine has none, so update then.
  return install() || (apt(['update']).status === 0 && install());
};
const debianTools = [
  { tool: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', pkg: 'chromium', usedBy: 'web/e2e', suites: 'browser suites' },
  { tool: process.env.PROMTOOL_PATH ?? '/usr/bin/promtool', pkg: 'prometheus', usedBy: 'infra/deploy/observability', suites: 'alert rule suites' },
  { tool: '/usr/bin/caddy', pkg: 'caddy', usedBy: 'infra/deploy/Caddyfile', suites: 'Caddyfile suite' },
];
for (const { tool, pkg, usedBy, suites } of debianTools) {
  if (!existsSync(resolve(root, usedBy)) || existsSync(tool) || process.getuid?.() !== 0) continue;
  console.log(`[test] installing Debian ${pkg} for the ${suites}`);
  if (!aptInstall(pkg) || !existsSync(tool)) console.warn(`[test] ${pkg} could not be installed; the ${suites} will be SKIPPED`);
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
