import { requireSettings } from '../config/settings';
import { standaloneRequires } from '../services/requirements';
import { runService } from '../wiring/process';
import { startStandalone } from './compose';

await runService('standalone', (settings, logger) => startStandalone(settings, logger), {
  validate: (settings) => requireSettings(settings, 'standalone', standaloneRequires),
  extra: (running, settings) => ({ mode: 'standalone', eventStore: running.eventStore.kind, dataDir: settings.dataDir }),
});
