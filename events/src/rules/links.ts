/**
 * Only http(s) URLs are stored as a card's link and rendered as links. A module of its own, with
 * no zod: the ranking on `/` calls it, and the form schemas (forms.ts) stay out of the entry script.
 */
export function isSafeLink(link: string): boolean {
  try {
    const url = new URL(link);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
