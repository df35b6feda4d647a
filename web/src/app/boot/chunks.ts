/**
 * The start-up chunks index.html names (vite.config.ts, nameBootChunks) and when they are fetched.
 * Imported by main.tsx and by the build config, so it holds no DOM work at module level.
 */
export const BOOT_CHUNK_META = 'boot-chunk';

/** Longest the start waits for the page to be on screen (a hidden tab draws no frames). */
export const PAINT_WAIT_LIMIT_MS = 1_000;

/**
 * Resolves once the page as its HTML draws it is on screen: its high-priority images (the largest
 * one, named by the HTML) decoded and two frames drawn. At most `limitMs`: a broken image, a slow
 * one or a tab in the background never holds the app back for longer.
 */
export function pageShown(doc: Document, limitMs = PAINT_WAIT_LIMIT_MS): Promise<void> {
  const images = [...doc.images].filter((img) => img.fetchPriority === 'high');
  const decoded = Promise.all(images.map((img) => img.decode().catch(() => undefined)));
  const painted = decoded.then(
    () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
  );
  return Promise.race([painted, new Promise<void>((resolve) => setTimeout(resolve, limitMs))]);
}

/**
 * Asks for every start-up chunk at once (modulepreload: fetched and parsed, not run), so they
 * download together and main.tsx then runs them one per task, in its own order.
 */
export function preloadBootChunks(doc: Document): void {
  for (const meta of doc.querySelectorAll<HTMLMetaElement>(`meta[name="${BOOT_CHUNK_META}"]`)) {
    const link = doc.createElement('link');
    link.rel = 'modulepreload';
    link.crossOrigin = '';
    link.href = meta.content;
    doc.head.append(link);
  }
}
