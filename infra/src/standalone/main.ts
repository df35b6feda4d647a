import { runService } from '../wiring/process';
import { startStandalone } from './compose';

await runService('standalone', (settings, logger) => startStandalone(settings, logger), {
  extra: (running, settings) => ({ mode: 'standalone', eventStore: running.eventStore.kind, dataDir: settings.dataDir }),
});
