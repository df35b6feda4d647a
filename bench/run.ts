/**
 * `npm run bench`: runs every benchmark module in turn and writes docs/benchmarks.md, one
 * section per module. `npm run bench -- <name> …` runs only those and prints them without
 * touching the file.
 *
 * A module exports `run(): Promise<{ title, markdown }>`; its markdown names the command that
 * reproduces it and puts each figure's limit beside it. Add a module to `modules` below.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
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

const only = process.argv.slice(2);
const unknown = only.filter((name) => !modules.some((m) => m.name === name));
if (unknown.length) {
  process.stderr.write(`Unknown bench module(s): ${unknown.join(', ')}. Known: ${modules.map((m) => m.name).join(', ')}\n`);
  process.exit(2);
}
const selected = only.length ? modules.filter((m) => only.includes(m.name)) : modules;

const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}, load average ${loadavg()
  .map((l) => l.toFixed(2))
  .join(' / ')} at start`;
const sections: string[] = [];
let failed = false;
for (const module of selected) {
  const started = Date.now();
  process.stderr.write(`bench: ${module.name}…\n`);
  try {
    const { title, markdown } = await (await module.load()).run();
    sections.push(`## ${title}\n\n${markdown}\n`);
    process.stderr.write(`bench: ${module.name} done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  } catch (error) {
    failed = true;
    sections.push(`## ${module.name}\n\nFailed: ${(error as Error).message}\n`);
    process.stderr.write(`bench: ${module.name} failed: ${(error as Error).stack ?? String(error)}\n`);
  }
}

const document = `# Benchmarks

Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC (${machine}).
Each section names the command that reproduces it. The machine is shared, so figures move
between runs; the limits are the targets from the issues.

${sections.join('\n')}`;

if (only.length) {
  process.stdout.write(document);
} else {
  const file = resolve(import.meta.dirname, '..', 'docs', 'benchmarks.md');
  mkdirSync(resolve(file, '..'), { recursive: true });
  writeFileSync(file, document);
  process.stdout.write(document);
  process.stderr.write(`bench: wrote ${file}\n`);
}
process.exit(failed ? 1 : 0);
