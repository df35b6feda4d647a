import { config } from 'zod';

/**
 * Imported first by the web app: zod otherwise probes `new Function('')` at its first parse to
 * see whether it may compile fast parsers. Under the site's Content-Security-Policy (no
 * 'unsafe-eval') the probe fails as intended, but the browser reports it as a CSP violation.
 * Without JIT, parsing a form is the same, only a little slower (nothing measurable here).
 */
config({ jitless: true });
