/**
 * `npm run bench`: runs every benchmark module in turn and writes each one's output to
 * docs/benchmarks/<module>.md, linked from docs/benchmarks.md. `npm run bench -- <name> …` runs
 * only those and prints them without touching a file; `npm run bench -- --update <name> …` runs
 * those and rewrites only their pages (the long ones can then be re-run alone).
 *
 * A module exports `run(): Promise<{ title, markdown }>`; its markdown names the command that
 * reproduces it and puts each figure's limit beside it. Add a module to `modules` below.
 * The notes written by hand in docs/benchmarks.md are kept by every run (`keptNotes`).
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
  { name: 'time-machine', load: () => import('./time-machine') },
  { name: 'failover', load: () => import('./failover') },
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

const docs = resolve(import.meta.dirname, '..', 'docs');
const page = resolve(docs, 'benchmarks.md');
/** Each module's full output is a page of its own: docs/benchmarks/<module>.md. */
const moduleFile = (name: string) => resolve(docs, 'benchmarks', `${name}.md`);

/**
 * The hand-written notes of docs/benchmarks.md (the current figures against their targets, what
 * they mean), between `<!-- notes` and `<!-- /notes -->`: every run keeps them as they are.
 */
function keptNotes(): string {
  if (!existsSync(page)) return '';
  const text = readFileSync(page, 'utf8');
  const start = text.indexOf('<!-- notes');
  const end = start < 0 ? -1 : text.indexOf('<!-- /notes -->', start);
  return end < 0 ? '' : `${text.slice(start, end + '<!-- /notes -->'.length)}\n\n`;
}

const printed = modules.filter((m) => sections.has(m.name)).map((m) => sections.get(m.name)!).join('\n');
if (only.length && !update) {
  process.stdout.write(printed);
} else {
  mkdirSync(resolve(docs, 'benchmarks'), { recursive: true });
  for (const [name, section] of sections) {
    writeFileSync(moduleFile(name), section.replace(/^## /, '# ') + `\n${machine}.\n`);
  }
  const links = modules
    .filter((m) => existsSync(moduleFile(m.name)))
    .map((m) => `- [${m.name}](benchmarks/${m.name}.md): \`npm run bench -- ${m.name}\``)
    .join('\n');
  writeFileSync(
    page,
    `# Benchmarks

The targets, their latest figures and how to reproduce them. \`npm run bench\` re-runs every
module and writes each one's full output to its own page (\`npm run bench -- --update <module>\`
re-runs one); the notes below are written by hand and kept by every run. The machine is shared,
so figures move between runs: compare a figure with the floor measured in the same run.

${keptNotes()}## Each module's last full output

${links}
`,
  );
  process.stdout.write(printed);
  process.stderr.write(`bench: wrote ${page} and the pages of ${[...sections.keys()].join(', ')}\n`);
}
process.exit(failed ? 1 : 0);
