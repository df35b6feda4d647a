/**
 * `npm run migrate:personal-data` (on the site's own settings: DATA_DIR, EVENT_STORE_URL): the
 * one-time encryption of the personal data of members who joined before it was encrypted.
 * Without `--confirm` it only says what it will do; back up first (`npm run backup -- <file>`).
 */
import { loadSettingsOrExit } from '../config/settings';
import { encryptPersonalData, MigrationRefused } from './personal-data';

const confirmed = process.argv.slice(2).includes('--confirm');
const settings = loadSettingsOrExit(process.env);
const out = (line: string) => process.stderr.write(`${line}\n`);

if (!confirmed) {
  out('migrate:personal-data encrypts, in place, the e-mails, names, links, messages and chat texts stored in clear');
  out(`in ${settings.eventStoreUrl.replace(/\/\/[^@/]*@/, '//***@')}. Stop the site (standalone) and back it up first:`);
  out('  npm run backup -- <file>');
  out('then run: npm run migrate:personal-data -- --confirm');
  process.exit(0);
}
try {
  const report = await encryptPersonalData(settings, (progress) => out(`  ${progress.scanned.toLocaleString('en')} events looked at, ${progress.encrypted.toLocaleString('en')} encrypted`));
  out(`migrate:personal-data: ${report.encrypted} of ${report.scanned} events with personal fields encrypted (running it again changes nothing).`);
  if (!settings.eventStoreUrl.startsWith('pglite:')) {
    out('Distributed: rebuild the read models (admin status panel) and delete the aggregate snapshots under REDIS_PREFIX, which were written in clear.');
  }
} catch (error) {
  out(`migrate:personal-data: ${error instanceof MigrationRefused ? error.message : ((error as Error).stack ?? String(error))}`);
  process.exit(1);
}
