import { readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import noImportCycle from './lint/no-import-cycle.js';
import { adapterZone, packageDoors, packageZones, testSupportZone } from './lint/boundaries.js';
import packages from './lint/zones/packages.js';
import eventsLayout from './lint/zones/events.js';
import commandApiLayout from './lint/zones/command-api.js';
import projectorLayout from './lint/zones/projector.js';
import queryApiLayout from './lint/zones/query-api.js';
import infraLayout from './lint/zones/infra.js';

// The web's boundaries (web/README.md, "Layout"). Import strings are checked as written, so each
// zone lists what its relative paths must not reach; dynamic import() is held to the same zones.
const WEB = 'web/src';
const FEATURES = readdirSync(new URL(`./${WEB}/features`, import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
/** A relative path that climbs out and into `dir` (…/dir or …/dir/…). */
const into = (dirs) => `^(\\.\\./)+(${dirs.join('|')})(/|$)`;

const WEB_ONLY_BROWSER = [
  {
    regex: '^@pass/(?!events/kernel$|events/zod-jitless$)',
    message: 'The web imports only @pass/events/kernel (browser-safe) and @pass/events/zod-jitless (its start-up setting) from the events package, and no other @pass package.',
  },
  { regex: '^node:', message: 'No Node built-ins in the browser bundle.' },
];
const NODE_BUILTINS = builtinModules
  .filter((name) => !name.startsWith('_'))
  .map((name) => ({ name, message: 'No Node built-ins in the browser bundle.' }));

const NOT_APP = { regex: into(['app']), message: 'Features never import app/: the store types are in lib/store-types, its hooks in lib/store-hooks.' };
const NOT_TESTING = { regex: into(['testing']), message: 'Only tests import testing/.' };

/** Zones: the files, and the extra patterns their imports must not match. */
const zones = [
  ...FEATURES.map((feature) => ({
    files: [`${WEB}/features/${feature}/**/*.{ts,tsx}`],
    patterns: [
      {
        regex: `(^|/)\\.\\./(${FEATURES.filter((f) => f !== feature).join('|')})(/|$)|^(\\.\\./)+features(/|$)`,
        message: `Features do not import each other: move what ${feature} needs to lib/, or let app/ compose the two.`,
      },
      NOT_APP,
    ],
  })),
  {
    files: [`${WEB}/app/**/*.{ts,tsx}`],
    patterns: [{ regex: '(^|/)features/[^/]+/(?!index$).', message: 'app/ imports a feature through its index.ts only.' }],
  },
  {
    files: [`${WEB}/lib/**/*.{ts,tsx}`],
    patterns: [{ regex: into(['features', 'app', 'components', 'testing']), message: 'lib/ is shared by everyone and imports none of app/, features/ or components/.' }],
  },
  {
    files: [`${WEB}/components/**/*.{ts,tsx}`],
    patterns: [{ regex: into(['features', 'app', 'testing']), message: 'components/ are generic UI: they import lib/ only.' }],
  },
];

const restrictImports = (patterns) => ({
  'no-restricted-imports': ['error', { paths: NODE_BUILTINS, patterns: [...WEB_ONLY_BROWSER, ...patterns] }],
  // no-restricted-imports does not look at import(): the same patterns for lazy imports.
  'no-restricted-syntax': [
    'error',
    ...[...WEB_ONLY_BROWSER, ...patterns].map(({ regex, message }) => ({
      selector: `ImportExpression[source.value=/${regex.replaceAll('/', '\\/')}/]`,
      message,
    })),
  ],
});

const webBoundaries = [
  { files: [`${WEB}/**/*.{ts,tsx}`], rules: restrictImports([]) },
  ...zones.flatMap(({ files, patterns }) => [
    { files, ignores: ['**/*.test.{ts,tsx}'], rules: restrictImports([...patterns, NOT_TESTING]) },
    // Tests keep their zone's boundaries and may use the test harness.
    { files: files.map((f) => f.replace('*.{ts,tsx}', '*.test.{ts,tsx}')), rules: restrictImports(patterns) },
  ]),
];

const SERVER_PACKAGES = ['events', 'command-api', 'projector', 'query-api', 'infra'];
const PRODUCT = ['{events,command-api,projector,query-api,infra,web}/src/**/*.{ts,tsx}'];
const SERVER_PRODUCT = [`{${SERVER_PACKAGES.join(',')}}/src/**/*.ts`];
const NOT_PRODUCT = ['**/*.test.{ts,tsx}', '**/test-support/**', '**/testing/**'];
const SERVER_ZONES = [
  ...[eventsLayout, commandApiLayout, projectorLayout, queryApiLayout, infraLayout].flatMap(packageZones),
  ...packageDoors(packages),
  adapterZone,
  testSupportZone,
];

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'data/**', '.test-results/**', 'web/e2e/screenshots/**', '.scratch/**', 'bench/.cache/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      'no-console': ['error', { allow: ['warn', 'error'] }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  { files: ['scripts/**', 'bench/**', 'lint/**', '**/*.test.ts', '**/e2e/**'], rules: { 'no-console': 'off' } },
  // Product functions stay short enough to read in one screen (docs/architecture.md, "Boundaries held by lint").
  {
    files: PRODUCT,
    ignores: NOT_PRODUCT,
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true }] },
  },
  // No import circle anywhere, type-only imports included.
  {
    files: ['**/*.{ts,tsx}'],
    plugins: { pass: { rules: { 'no-import-cycle': noImportCycle } } },
    rules: { 'pass/no-import-cycle': 'error' },
  },
  // The server packages' zones (lint/zones/*.js), held on imports as resolved to files.
  {
    files: SERVER_PRODUCT,
    ignores: NOT_PRODUCT,
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })] },
    rules: { 'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: SERVER_ZONES }] },
  },
  ...webBoundaries,
);
