import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { recordSkippedSuite } from '@pass/events/test-support';
import { spawnStandalone, type SpawnedService } from '../test-support/spawn-process';

/**
 * infra/deploy/observability: the alert rules load and each alert fires where it should and not
 * elsewhere (promtool's unit tests, alerts.test.yml), each names a runbook section that exists,
 * the Prometheus config and the Grafana dashboard hold together, and a real standalone's
 * /metrics passes `promtool check metrics` and exports every series the rules read from it.
 */
const repo = resolve(import.meta.dirname, '../../..');
const folder = join(repo, 'infra/deploy/observability');
const promtool = process.env.PROMTOOL_PATH ?? '/usr/bin/promtool';
const hasPromtool = existsSync(promtool);
if (!hasPromtool) recordSkippedSuite('observability: promtool rules and metrics checks', `${promtool} not installed (apt-get install prometheus)`);

const run = (args: string[], input?: string) => spawnSync(promtool, args, { cwd: folder, encoding: 'utf8', timeout: 120_000, ...(input === undefined ? {} : { input }) });

interface Rule {
  alert: string;
  expr: string;
  annotations: { runbook: string };
}
const rules = (parse(readFileSync(join(folder, 'alerts.yml'), 'utf8')) as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules);

describe('alert rules and dashboard (static)', () => {
  it('every alert has a unit test and a runbook section in docs/operations.md', () => {
    const tests = parse(readFileSync(join(folder, 'alerts.test.yml'), 'utf8')) as { tests: { alert_rule_test: { alertname: string; exp_alerts: unknown[] }[] }[] };
    const cases = tests.tests.flatMap((t) => t.alert_rule_test);
    const runbook = readFileSync(join(repo, 'docs/operations.md'), 'utf8');
    const anchors = new Set([...runbook.matchAll(/^#{2,4} (.+)$/gm)].map((m) => m[1]!.trim().toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-')));
    for (const rule of rules) {
      expect(cases.some((c) => c.alertname === rule.alert && c.exp_alerts.length > 0), `${rule.alert} fires in a test`).toBe(true);
      expect(cases.some((c) => c.alertname === rule.alert && c.exp_alerts.length === 0), `${rule.alert} stays quiet in a test`).toBe(true);
      expect(rule.annotations.runbook).toBe(`docs/operations.md#${rule.alert.toLowerCase()}`);
      expect(anchors.has(rule.alert.toLowerCase()), `docs/operations.md has a "${rule.alert}" heading`).toBe(true);
    }
  });

  it('the dashboard reads the provisioned datasource and only series the services export', () => {
    const dashboard = JSON.parse(readFileSync(join(folder, 'grafana/dashboards/pass.json'), 'utf8')) as { panels: { type: string; datasource?: { uid: string }; targets?: { expr: string }[] }[] };
    const datasource = parse(readFileSync(join(folder, 'grafana/provisioning/datasources/prometheus.yml'), 'utf8')) as { datasources: { uid: string }[] };
    const graphs = dashboard.panels.filter((p) => p.type !== 'row');
    expect(graphs.length).toBeGreaterThan(10);
    for (const panel of graphs) expect(panel.datasource?.uid).toBe(datasource.datasources[0]!.uid);
    const exprs = graphs.flatMap((p) => p.targets ?? []).map((t) => t.expr);
    const series = ['pass_commands_total', 'pass_command_duration_seconds_bucket', 'pass_projector_lag_events', 'pass_projector_lag_seconds', 'pass_sockets_connected', 'nodejs_eventloop_lag_p99_seconds'];
    // Which projector of the hot/standby group leads, and how often the lease changes hands.
    series.push('pass_projector_leader', 'pass_projector_lease_acquired_total', 'pass_projector_lease_lost_total');
    for (const name of series) {
      expect(exprs.some((e) => e.includes(name)), name).toBe(true);
    }
  });
});

describe.skipIf(!hasPromtool)('promtool', () => {
  it('loads the rules and the Prometheus config', () => {
    const rulesCheck = run(['check', 'rules', 'alerts.yml']);
    expect(rulesCheck.status, rulesCheck.stdout + rulesCheck.stderr).toBe(0);
    expect(rulesCheck.stdout).toContain(`SUCCESS: ${rules.length} rules found`);
    const config = run(['check', 'config', 'prometheus.yml']);
    expect(config.status, config.stdout + config.stderr).toBe(0);
  });

  it('passes the unit test of every alert (firing and not firing)', () => {
    const tested = run(['test', 'rules', 'alerts.test.yml']);
    expect(tested.status, tested.stdout + tested.stderr).toBe(0);
    expect(tested.stdout).toContain('SUCCESS');
  });
});

describe.skipIf(!hasPromtool)('a running standalone /metrics', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'pass-metrics-lint-'));
  let app: SpawnedService;
  beforeAll(async () => {
    app = await spawnStandalone({ DATA_DIR: dataDir, WEB_DIST_DIR: join(dataDir, 'no-web-build') });
  }, 60_000);
  afterAll(async () => {
    await app?.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('passes promtool check metrics and exports what the standalone rules read', { timeout: 60_000 }, async () => {
    const text = await (await fetch(`${app.url}/metrics`)).text();
    const checked = run(['check', 'metrics'], text);
    // 3: lint findings. Only prom-client's own gauges named *_total are tolerated (not ours to rename).
    expect([0, 3], checked.stderr).toContain(checked.status);
    const findings = (checked.stdout + checked.stderr).split('\n').filter((l) => l.trim() && !/^nodejs_active_(handles|requests|resources)_total non-counter/.test(l));
    expect(findings).toEqual([]);
    for (const name of ['pass_data_dir_free_bytes', 'pass_data_dir_size_bytes', 'pass_backup_last_success_timestamp_seconds', 'pass_ready_check', 'pass_projector_lag_events', 'pass_projector_lag_seconds', 'pass_projector_errors_total', 'pass_projector_last_error_timestamp_seconds', 'pass_commands_total', 'pass_query_seconds', 'pass_sockets_connected', 'nodejs_eventloop_lag_p99_seconds']) {
      expect(text, name).toMatch(new RegExp(`^# TYPE ${name} `, 'm'));
    }
    expect(text).toMatch(/^pass_backup_last_success_timestamp_seconds\{service="standalone"\} 0$/m);
    expect(text).toMatch(/^pass_ready_check\{check="event-store",service="standalone"\} 1$/m);
  });
});
