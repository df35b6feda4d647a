import { memo } from 'react';
import { LIMITS } from '@pass/events/kernel';
import { adNetworkOfPage, type AdNetworkSettings } from '../lib/page-settings';
import type { AdSlot } from '../lib/services';
import { useHydrated } from '../lib/hooks';

// Read once: the server wrote it into the page before any script ran (no page at build time).
const network = typeof document === 'undefined' ? undefined : adNetworkOfPage();
const HOUSE_BANNERS = 4;

/**
 * The network's invoke script writes its own iframe; it runs in a same-origin srcdoc frame so slots
 * don't clash. /ad-frame.js (public/) runs first and marks whether invoke.js loaded or failed. The
 * inline script is allowed by its hash in the server's Content-Security-Policy
 * (infra/src/http/security-headers.ts adOptionsScriptHash): keep the two in step.
 */
export function networkDocument({ key, host }: AdNetworkSettings): string {
  const options = JSON.stringify({ key, format: 'iframe', height: LIMITS.adHeight, width: LIMITS.adWidth, params: {} });
  return `<!doctype html><html><body style="margin:0"><script>atOptions=${options};</script><script src="/ad-frame.js"></script><script src="https://${host}/${encodeURIComponent(key)}/invoke.js"></script></body></html>`;
}

export interface AdBannerProps {
  slot: AdSlot;
  /** Picks which house banner shows, so neighbouring slots differ. */
  index: number;
}

/** A 300×250 ad slot. The ad checks look for a loaded iframe inside `[data-ad-slot]`. */
export const AdBanner = memo(function AdBanner({ slot, index }: AdBannerProps) {
  const house = (index % HOUSE_BANNERS) + 1;
  // The build-time HTML cannot know the deployment's network (the server names it per request):
  // the frame comes with the first render after hydration, into the slot already laid out.
  const hydrated = useHydrated();
  return (
    <div className="ad-slot" data-ad-slot={slot} role="complementary" aria-label="Advertisement">
      {!hydrated ? null : network ? (
        <iframe
          title="Advertisement"
          data-network="true"
          width={LIMITS.adWidth}
          height={LIMITS.adHeight}
          srcDoc={networkDocument(network)}
        />
      ) : (
        <iframe
          title="Advertisement"
          width={LIMITS.adWidth}
          height={LIMITS.adHeight}
          src={`/ads/house-${house}.html`}
          loading="eager"
        />
      )}
    </div>
  );
});

/** Drawn with a real size: a blocker that hides an ad (or leaves an empty 0×0 frame) fails this. */
function hasSize(element: Element): boolean {
  const box = element.getBoundingClientRect();
  return box.width >= 1 && box.height >= 1;
}

/**
 * A house banner loaded: its own document is there (a blocked request leaves the frame showing
 * the browser's error page, whose document is not readable, or an empty one) and it has a size.
 */
function houseBannerLoaded(frame: HTMLIFrameElement): boolean {
  let doc: Document | null;
  try {
    doc = frame.contentDocument;
  } catch {
    return false;
  }
  return Boolean(doc?.body?.firstElementChild) && hasSize(frame);
}

/**
 * A network banner loaded: the network's script loaded (not refused: /ad-frame.js marks it) and
 * put a frame of a real size into the slot's frame, which is itself drawn with a size.
 */
function networkBannerLoaded(frame: HTMLIFrameElement): boolean {
  if (!hasSize(frame)) return false;
  let doc: Document | null;
  try {
    doc = frame.contentDocument;
  } catch {
    // Cross-origin means the network replaced the frame's document with its own ad.
    return true;
  }
  if (!doc || doc.documentElement.dataset.adScript !== 'loaded') return false;
  return Array.from(doc.querySelectorAll('iframe')).some(hasSize);
}

/**
 * How many slots of a kind are rendered and how many hold a banner that really loaded (docs/product.md §4 ad
 * checks): not only an iframe element, which blockers that refuse the ad's requests leave in place.
 */
export function countAdSlots(slot: AdSlot, root: ParentNode = document): { slots: number; loaded: number } {
  const containers = Array.from(root.querySelectorAll<HTMLElement>(`[data-ad-slot="${slot}"]`));
  let loaded = 0;
  for (const container of containers) {
    const frame = container.querySelector('iframe');
    if (!frame) continue;
    if (frame.dataset.network === 'true' ? networkBannerLoaded(frame) : houseBannerLoaded(frame)) loaded++;
  }
  return { slots: containers.length, loaded };
}
