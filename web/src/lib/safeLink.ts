/**
 * The kernel's `isSafeLink` (events/src/rules/forms.ts), copied for the ranking on `/`: that module
 * also builds the form schemas at load, so importing it from the page `/` renders put zod (~22 KB
 * gzip) into the entry script. safeLink.test.ts holds this copy to the kernel's rule. (Moving the
 * rule to a zod-free kernel module would let the web import it again.)
 */
export function isSafeLink(link: string): boolean {
  try {
    const url = new URL(link);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
