// The web app's production build (what `npm start` runs on a first start) says nothing it
// should not: each Vite or Rolldown warning is something to fix in web/vite.config.ts or the
// sources, not noise a member starting the site has to read past. Built in memory (write: false),
// so web/dist stays as it is.
import { resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { build, createLogger, type Logger } from 'vite';
import { describe, expect, it } from 'vitest';

const WEB = resolve(import.meta.dirname, '../web');

/** A logger that keeps every warning and error Vite gives it. */
function recordingLogger(said: string[]): Logger {
  const logger = createLogger('warn', { allowClearScreen: false });
  const keep = (msg: string) => said.push(stripVTControlCharacters(msg));
  return { ...logger, info: () => undefined, warn: keep, warnOnce: keep, error: keep };
}

describe('the web build', () => {
  it('prints no warning', { timeout: 120_000 }, async () => {
    const said: string[] = [];
    await build({
      root: WEB,
      configFile: resolve(WEB, 'vite.config.ts'),
      mode: 'production',
      logLevel: 'warn',
      customLogger: recordingLogger(said),
      build: { write: false, reportCompressedSize: false },
    });
    expect(said).toEqual([]);
  });
});
