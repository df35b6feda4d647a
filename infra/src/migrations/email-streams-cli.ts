/**
 * `npm run migrate:email-streams` (on the site's own settings: DATA_DIR, EVENT_STORE_URL): the
 * one-time renaming of e-mail streams named by the unkeyed SHA-256 of the address to the
 * installation's keyed names. Without `--confirm` it only says what it will do; back up first.
 */
import { loadSettingsOrExit } from '../config/settings';
import { rekeyEmailStreams } from './email-streams';
import { MigrationRefused } from './store';

const confirmed = process.argv.slice(2).includes('--confirm');
const settings = loadSettingsOrExit(process.env);
const out = (line: string) => process.stderr.write(`${line}\n`);
const esdb = !/^(pglite:|postgres(ql)?:\/\/)/.test(settings.eventStoreUrl);

if (!confirmed) {
  out('migrate:email-streams renames the e-mail streams named by the unkeyed SHA-256 of the address to keyed names');
  out(`in ${settings.eventStoreUrl.replace(/\/\/[^@/]*@/, '//***@')}${esdb ? ' (KurrentDB: each is copied under its new name, the old one tombstoned)' : ', in place'}.`);
  out('Stop the site (every command-api when distributed) and back it up first: npm run backup -- <file> (standalone)');
  out('then run: npm run migrate:email-streams -- --confirm');
  process.exit(0);
}
try {
  const report = await rekeyEmailStreams(settings, (progress) => {
    if (progress.scanned % 100_000 === 0) out(`  ${progress.scanned.toLocaleString('en')} events looked at`);
  });
  out(`migrate:email-streams: ${report.renamed} e-mail streams renamed (${report.erased} of erased addresses), ${report.scanned} events looked at (running it again changes nothing).`);
  if (esdb && report.renamed > 0) out('KurrentDB: the old streams are tombstoned; run a scavenge to remove their events (their names stay as tombstones).');
} catch (error) {
  out(`migrate:email-streams: ${error instanceof MigrationRefused ? error.message : ((error as Error).stack ?? String(error))}`);
  process.exit(1);
}
