/**
 * The operator's commands, on the site's own settings (DATA_DIR, PORT, HOST, EVENT_STORE_URL,
 * SESSION_SECRET as `npm start` has them):
 *   npm run backup -- <file>                 archive the site (running or not)
 *   npm run restore -- <file>                fill an empty DATA_DIR from an archive
 *   npm run move-to-postgres -- <postgres://…>  copy a stopped standalone's events into PostgreSQL
 * A refusal is one line on stderr and exit status 1.
 */
import { z } from 'zod';
import { loadSettingsOrExit } from '../config/settings';
import { ArchiveError } from './archive';
import { takeBackup } from './backup';
import { moveToPostgres } from './move';
import { terminalProgress } from './progress';
import { restoreBackup } from './restore';

const argsSchema = z.tuple([z.enum(['backup', 'restore', 'move-to-postgres']), z.string().min(1)]);

async function main(): Promise<void> {
  const parsed = argsSchema.safeParse(process.argv.slice(2));
  if (!parsed.success) {
    process.stderr.write('usage: npm run backup -- <file> | npm run restore -- <file> | npm run move-to-postgres -- <postgres://…>\n');
    process.exit(2);
  }
  const [command, target] = parsed.data;
  const settings = loadSettingsOrExit(process.env);
  const progress = terminalProgress();
  if (command === 'backup') await takeBackup(settings, target, progress);
  else if (command === 'restore') await restoreBackup(settings, target, progress);
  else await moveToPostgres(settings, target, progress);
}

try {
  await main();
} catch (error) {
  // A refusal the operator can act on is one line; anything else keeps its stack.
  const known = error instanceof ArchiveError;
  process.stderr.write(`${process.argv[2] ?? 'backup'}: ${known ? error.message : ((error as Error).stack ?? String(error))}\n`);
  process.exit(1);
}
