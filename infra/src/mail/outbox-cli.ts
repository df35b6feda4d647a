/**
 * `npm run outbox [-- <how many>]`: the newest mails the site wrote to its outbox folder
 * (DATA_DIR/outbox, standalone without SMTP_URL), newest first, each with its date, recipient,
 * subject and links, every link whole on a line of its own (ready to open or copy).
 */
import { relative } from 'node:path';
import { loadSettingsOrExit } from '../config/settings';
import { newestMails } from './outbox';

const DEFAULT_COUNT = 3;

const arg = process.argv[2];
if (arg !== undefined && !/^[1-9]\d{0,5}$/.test(arg)) {
  process.stderr.write(`usage: npm run outbox [-- <how many, default ${DEFAULT_COUNT}>]\n`);
  process.exit(2);
}
const settings = loadSettingsOrExit(process.env);
const mails = await newestMails(settings.outboxDir, arg === undefined ? DEFAULT_COUNT : Number(arg));
const shown = (path: string) => (relative(process.cwd(), path).startsWith('..') ? path : relative(process.cwd(), path));
const out = (line: string) => process.stdout.write(`${line}\n`);

if (settings.smtpUrl) out(`SMTP_URL is set: the site sends its mails over SMTP; ${shown(settings.outboxDir)} holds only older ones.`);
if (mails.length === 0) out(`No mails in ${shown(settings.outboxDir)} yet (the site writes one there for each reset link asked for).`);
for (const mail of mails) {
  out('');
  out(`${mail.date}  to ${mail.to}`);
  out(`  ${mail.subject}`);
  for (const link of mail.links) out(`  ${link}`);
  out(`  (${shown(mail.file)})`);
}
