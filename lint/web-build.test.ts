// The web app's production build (what `npm start` runs on a first start) says nothing it
// should not: each Vite or Rolldown warning is something to fix in web/vite.config.ts or the
// sources, not noise a member starting the site has to read past. And what only some pages use
// stays out of what `/` loads: the progress chart's library (the progress page's and the admin
// dashboard's) is in a chunk of its own. Built once, in memory (write: false), so web/dist stays
// as it is.
import { resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { build, createLogger, type Logger, type Rollup } from 'vite';
import { beforeAll, describe, expect, it } from 'vitest';

const WEB = resolve(import.meta.dirname, '../web');

/** A logger that keeps every warning and error Vite gives it. */
function recordingLogger(said: string[]): Logger {
  const logger = createLogger('warn', { allowClearScreen: false });
  const keep = (msg: string) => said.push(stripVTControlCharacters(msg));
  return { ...logger, info: () => undefined, warn: keep, warnOnce: keep, error: keep };
}

/**
 * What a first load of `/` runs: the chunks index.html names (its entry script, module preloads
 * and boot chunks) and every chunk they import statically.
 */
function loadedAtStart(chunks: Rollup.OutputChunk[], html: string): Set<Rollup.OutputChunk> {
  const byFile = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
  const found = new Set<Rollup.OutputChunk>();
  const visit = (chunk: Rollup.OutputChunk) => {
    if (found.has(chunk)) return;
    found.add(chunk);
    for (const file of chunk.imports) visit(byFile.get(file)!);
  };
  for (const [, file] of html.matchAll(/"\/([^"]+\.js)"/g)) visit(byFile.get(file!)!);
  return found;
}

const holds = (chunk: Rollup.OutputChunk, module: RegExp) => Object.keys(chunk.modules).some((id) => module.test(id));

describe('the web build', () => {
  const said: string[] = [];
  let chunks: Rollup.OutputChunk[] = [];
  let html = '';

  beforeAll(async () => {
    const output = await build({
      root: WEB,
      configFile: resolve(WEB, 'vite.config.ts'),
      mode: 'production',
      logLevel: 'warn',
      customLogger: recordingLogger(said),
      build: { write: false, reportCompressedSize: false },
    });
    const outputs = (Array.isArray(output) ? output : [output]) as Rollup.RollupOutput[];
    const items = outputs.flatMap((o) => o.output);
    chunks = items.filter((item): item is Rollup.OutputChunk => item.type === 'chunk');
    const page = items.find((item): item is Rollup.OutputAsset => item.type === 'asset' && item.fileName === 'index.html');
    html = String(page?.source ?? '');
  }, 120_000);

  it('prints no warning', () => {
    expect(said).toEqual([]);
  });

  it('loads uPlot only with the progress chart, never with what `/` loads at start', () => {
    const uplot = /\/node_modules\/uplot\//;
    const withUplot = chunks.filter((chunk) => holds(chunk, uplot));
    expect(withUplot.map((chunk) => chunk.fileName)).not.toEqual([]);
    const atStart = loadedAtStart(chunks, html);
    expect(atStart.size).toBeGreaterThan(1);
    expect([...atStart].filter((chunk) => holds(chunk, uplot)).map((chunk) => chunk.fileName)).toEqual([]);
    // Reached only by the chart's dynamic import.
    const importers = chunks.filter((chunk) => withUplot.some((u) => chunk.dynamicImports.includes(u.fileName)));
    expect(importers).not.toEqual([]);
    expect(importers.every((chunk) => holds(chunk, /\/src\/components\/ProgressChart\.tsx$/))).toBe(true);
  });
});
