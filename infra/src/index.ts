// The composition roots, for hosts that start them in-process (tests, tools).
export { startStandalone, type RunningStandalone } from './standalone/compose';
export { startCommandApiService } from './services/command-api';
export { startProjectorService } from './services/projector';
export { startQueryApiService } from './services/query-api';
export { createProxy, startProxyService } from './services/proxy';
export { upstreamFor, type Upstream } from './services/routes';
export { parseSettings, loadSettingsOrExit, requireSettings, SettingsError, type Settings } from './config/settings';
