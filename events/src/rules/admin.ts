/**
 * What the server answers the admin dashboard, in the dashboard's language (Spanish,
 * docs/product.md §2): command-api's and query-api's admin routes answer these, so every refusal
 * the dashboard shows reads like the rest of it. Browser-safe.
 */
/**
 * Replays (the site as of a moment) kept at once: each holds a whole set of read models (in
 * memory in standalone, in Redis when distributed), so a request beyond this is refused (429).
 */
export const REPLAYS_KEPT = 3;

export const ADMIN_MESSAGES = {
  loginFirst: 'Inicie sesión como administrador',
  wrongCredentials: 'Email o contraseña incorrectos',
  noSuchMember: 'Este miembro no existe',
  noPost: 'Este miembro no tiene publicación',
  rebuildUnavailable: 'La reconstrucción no está disponible en este proceso',
  replayBadMoment: 'Indique un momento: una fecha ISO-8601 (at) o una posición de evento (position) como la muestra Proyecciones',
  replayFuture: 'Ese momento todavía no ha llegado',
  replayBeforeFirst: 'Ese momento es anterior al primer evento',
  replayNoEvents: 'Todavía no hay eventos que reproducir',
  replayTooMany: `Ya hay ${REPLAYS_KEPT} reproducciones guardadas; borre una antes de pedir otra`,
  noSuchReplay: 'Esta reproducción no existe',
  replayRunning: 'La reproducción aún no ha terminado',
  replayFailed: 'La reproducción falló; bórrela y pídala de nuevo',
  replaysUnavailable: 'Las reproducciones no están disponibles en este proceso',
} as const;
