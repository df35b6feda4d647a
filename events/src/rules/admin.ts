/**
 * What the server answers the admin dashboard, in the dashboard's language (Spanish,
 * docs/product.md §2): command-api's and query-api's admin routes answer these, so every refusal
 * the dashboard shows reads like the rest of it. Browser-safe.
 */
export const ADMIN_MESSAGES = {
  loginFirst: 'Inicie sesión como administrador',
  wrongCredentials: 'Email o contraseña incorrectos',
  noSuchMember: 'Este miembro no existe',
  noPost: 'Este miembro no tiene publicación',
  rebuildUnavailable: 'La reconstrucción no está disponible en este proceso',
} as const;
