/**
 * `npm run bench`: runs every benchmark module in turn and writes docs/benchmarks.md, one
 * section per module. `npm run bench -- <name> …` runs only those and prints them without
 * touching the file.
 *
 * `npm run bench -- --update <name> …` runs those and replaces only their sections in
 * docs/benchmarks.md (the long ones can then be re-run alone).
 *
 * A module exports `run(): Promise<{ title, markdown }>`; its markdown names the command that
 * reproduces it and puts each figure's limit beside it. Add a module to `modules` below.
 * The notes written by hand above the sections are kept by every run (`keptNotes`).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';

interface BenchModule {
  run(): Promise<{ title: string; markdown: string }>;
}

const modules: { name: string; load: () => Promise<BenchModule> }[] = [
  { name: 'event-store', load: () => import('./event-store') },
  { name: 'commands', load: () => import('./commands') },
  { name: 'projections', load: () => import('./projections') },
  { name: 'queries', load: () => import('./queries') },
  { name: 'web', load: () => import('./web') },
  { name: 'live', load: () => import('./live') },
  { name: 'fanout', load: () => import('./fanout') },
  { name: 'distributed', load: () => import('./distributed') },
  { name: 'rebuild', load: () => import('./rebuild') },
  { name: 'cold-start', load: () => import('./cold-start') },
];

const args = process.argv.slice(2);
const update = args.includes('--update');
const only = args.filter((a) => a !== '--update');
const unknown = only.filter((name) => !modules.some((m) => m.name === name));
if (unknown.length) {
  process.stderr.write(`Unknown bench module(s): ${unknown.join(', ')}. Known: ${modules.map((m) => m.name).join(', ')}\n`);
  process.exit(2);
}
const selected = only.length ? modules.filter((m) => only.includes(m.name)) : modules;
if (update && !only.length) {
  process.stderr.write('--update needs the module names to re-run\n');
  process.exit(2);
}

const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}, load average ${loadavg()
  .map((l) => l.toFixed(2))
  .join(' / ')} at start`;
const sections = new Map<string, string>();
let failed = false;
for (const module of selected) {
  const started = Date.now();
  process.stderr.write(`bench: ${module.name}…\n`);
  const when = `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ')} at its start.`;
  try {
    const { title, markdown } = await (await module.load()).run();
    sections.set(module.name, `## ${title}\n\n${markdown}\n\n${when}\n`);
    process.stderr.write(`bench: ${module.name} done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  } catch (error) {
    failed = true;
    sections.set(module.name, `## ${module.name}\n\nFailed: ${(error as Error).message}\n\n${when}\n`);
    process.stderr.write(`bench: ${module.name} failed: ${(error as Error).stack ?? String(error)}\n`);
  }
}

const file = resolve(import.meta.dirname, '..', 'docs', 'benchmarks.md');
const marker = (name: string) => `<!-- bench:${name} -->`;
/** Sections of the existing file by module (written between markers), for --update. */
function existingSections(): Map<string, string> {
  const kept = new Map<string, string>();
  if (!existsSync(file)) return kept;
  const text = readFileSync(file, 'utf8');
  for (const m of modules) {
    const start = text.indexOf(marker(m.name));
    if (start < 0) continue;
    const end = text.indexOf('<!-- bench:', start + marker(m.name).length);
    kept.set(m.name, text.slice(start + marker(m.name).length, end < 0 ? undefined : end).trim() + '\n');
  }
  return kept;
}
/**
 * The hand-written notes above the sections (the current figures at a glance, what they mean),
 * between `<!-- notes` and `<!-- /notes -->`: every run keeps them as they are.
 */
function keptNotes(): string {
  if (!existsSync(file)) return '';
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf('<!-- notes');
  const end = start < 0 ? -1 : text.indexOf('<!-- /notes -->', start);
  return end < 0 ? '' : `${text.slice(start, end + '<!-- /notes -->'.length)}\n\n`;
}
const notes = only.length && !update ? '' : keptNotes();
const all = update ? new Map([...existingSections(), ...sections]) : sections;
const body = modules
  .filter((m) => all.has(m.name))
  .map((m) => `${marker(m.name)}\n${all.get(m.name)!}`)
  .join('\n');

const document = `# Benchmarks

Written by \`npm run bench\` (${update ? `last --update run: ${only.join(', ')}` : 'every module'}; ${machine}).
Each section names the command that reproduces it and when it was measured. The machine is
shared, so figures move between runs; the limits are the targets from the issues.

${notes}${body}`;

if (only.length && !update) {
  process.stdout.write(document);
} else {
  mkdirSync(resolve(file, '..'), { recursive: true });
  writeFileSync(file, document);
  process.stdout.write(document);
  process.stderr.write(`bench: wrote ${file}\n`);
}
process.exit(failed ? 1 : 0);
