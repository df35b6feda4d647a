// infra/src: the composition roots, over settings, the HTTP shell and shared wiring.
export default {
  src: 'infra/src',
  layout: {
    config: [],
    'logger.ts': [],
    http: ['config', 'logger.ts'],
    wiring: ['config', 'http', 'logger.ts'],
    backup: ['config', 'wiring', 'logger.ts'],
    migrations: ['config', 'wiring', 'logger.ts'],
    mail: ['config'],
    services: ['config', 'http', 'wiring', 'logger.ts'],
    standalone: ['config', 'http', 'wiring', 'services', 'backup', 'logger.ts'],
    operations: [],
    'index.ts': 'any',
  },
  why: {},
};
