import type { EmailStreamNamer, EventStore } from '@pass/events';
import type { Logger } from 'pino';
import type { Mailer } from './mail/mailer';
import type { PaymentProvider } from './payments/provider/port';
import type { DeviceCookies } from './sessions/device-cookies';
import type { ActionThrottle, LoginThrottle } from './sessions/rate-limiter';
import type { Sessions } from './sessions/sessions';
import type { ImageJobs } from './uploads/image-jobs';
import type { ResetLinks } from './account-access/reset-links';
import type { AdViewTickets } from './free-points/ad-view-tickets';
import type { BackgroundWork } from './kernel/background';
import type { Clock } from './kernel/clock';
import type { CommandHandler } from './kernel/command-handler';

/** What the routes and the gateway share. */
export interface CommandServices {
  handler: CommandHandler;
  sessions: Sessions;
  throttle: LoginThrottle;
  /** Browsers that signed in to an account before: past its ceiling on their own budget. */
  devices: DeviceCookies;
  /** Chat and free-point burst limits per member and per address. */
  actions: ActionThrottle;
  payments: PaymentProvider;
  images: ImageJobs;
  uploadsDir: string;
  logger: Logger;
  clock: Clock;
  /** Signs and checks the free point's ad-view tickets (keyed from the session secret). */
  adViews: AdViewTickets;
  /** The installation's e-mail stream names (keyed, CommandApiConfig.emailStreamKey). */
  emailStream: EmailStreamNamer;
  /** Signs and opens password reset links (keyed from the session secret). */
  resetLinks: ResetLinks;
  /** The member's own stream, read whole for their data export. */
  eventStore: EventStore;
  mailer: Mailer;
  /** The site's public address (`https://example.org`): links in mails are built on it. */
  siteUrl: string;
  /** Work answered before it is done (reset mails); `close()` waits for it. */
  background: BackgroundWork;
  /** The host's own copies of an erased member's data, cleared before the erasure is answered. */
  afterErasure?: (userId: string) => Promise<void>;
}
