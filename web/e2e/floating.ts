/**
 * The geometry check behind "no floating element covers a control": the boxes of the floating
 * elements showing now against the boxes of every visible interactive control, in the viewport.
 */
import type { Page } from 'playwright-core';

/** What floats over the page, by the name the report uses. */
export const FLOATING = {
  // The toast's bar (react-hot-toast draws it around the status line), in its own fixed container or in the top dock.
  toast: '[data-rht-toaster] div:has(> [role="status"]), .toasts div:has(> [role="status"])',
  'newest-post popup': '.new-member',
  'floating bar': '.floating-bar',
  'cookie notice': '.cookie-notice',
  'chat panel': '.chat-panel',
} as const;
export type FloatingName = keyof typeof FLOATING;

/** The controls a member uses. */
export const CONTROLS = 'a[href], button, input:not([type="hidden"]), select, textarea, [role="button"], summary';

export interface FloatingOverlap {
  floating: FloatingName;
  /** The control: tag, then its accessible-ish name. */
  control: string;
  /** The covered area in CSS pixels. */
  area: number;
  text: string;
}

/**
 * Every overlap, now, of a showing floating element with a visible control outside it: a control
 * counts where it is drawn (its box clipped by scrolling ancestors and the viewport), a floating
 * element where its box is, and only where it is the topmost thing drawn (a grid of points of the
 * common box, by elementFromPoint: an open side menu over an in-flow notice is not the notice
 * covering the menu). The floating element's own controls do not count. `within` (a selector)
 * limits the controls to those inside it, e.g. an open side menu over the page.
 */
export async function floatingOverlaps(page: Page, within = 'body'): Promise<FloatingOverlap[]> {
  return page.evaluate(({ floating, controls, within }) => {
    type Box = { left: number; top: number; right: number; bottom: number };
    const intersect = (a: Box, b: Box): Box => ({
      left: Math.max(a.left, b.left), top: Math.max(a.top, b.top), right: Math.min(a.right, b.right), bottom: Math.min(a.bottom, b.bottom),
    });
    const area = (b: Box) => Math.max(0, b.right - b.left) * Math.max(0, b.bottom - b.top);
    const shown = (el: Element) => el.checkVisibility({ opacityProperty: true, visibilityProperty: true }) && area(el.getBoundingClientRect()) > 0;
    /** Where the element is drawn: its box, clipped by each ancestor that clips overflow and by the viewport. */
    const drawn = (el: Element): Box => {
      let box: Box = el.getBoundingClientRect();
      for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
        const style = getComputedStyle(up);
        if (style.overflowX !== 'visible' || style.overflowY !== 'visible') box = intersect(box, up.getBoundingClientRect());
        if (style.position === 'fixed') break;
      }
      return intersect(box, { left: 0, top: 0, right: window.innerWidth, bottom: window.innerHeight });
    };
    const name = (el: Element) => {
      const label = el.getAttribute('aria-label') ?? (el as HTMLInputElement).labels?.[0]?.textContent ?? el.textContent ?? '';
      return `${el.tagName.toLowerCase()} "${label.replace(/\s+/g, ' ').trim().slice(0, 60)}"`;
    };
    /** Whether, at some of a grid of points of the common box, the floating element is the topmost thing drawn. */
    const onTop = (float: Element, control: Element, common: Box) => {
      const steps = 5;
      for (let i = 0; i < steps; i++) {
        for (let j = 0; j < steps; j++) {
          const x = common.left + ((i + 0.5) * (common.right - common.left)) / steps;
          const y = common.top + ((j + 0.5) * (common.bottom - common.top)) / steps;
          const top = document.elementFromPoint(x, y);
          if (top && float.contains(top)) return true;
        }
      }
      return false;
    };
    const floats = Object.entries(floating).flatMap(([key, selector]) =>
      [...document.querySelectorAll(selector)].filter(shown).map((el) => ({ key, el, box: drawn(el) })),
    );
    const found: Array<{ floating: string; control: string; area: number; text: string }> = [];
    for (const control of document.querySelector(within)?.querySelectorAll(controls) ?? []) {
      if (!shown(control) || control.closest('[inert]')) continue;
      const box = drawn(control);
      if (area(box) === 0) continue;
      for (const f of floats) {
        if (f.el.contains(control)) continue;
        const common = intersect(box, f.box);
        const covered = area(common);
        if (covered === 0 || !onTop(f.el, control, common)) continue;
        const r = (n: number) => Math.round(n);
        found.push({
          floating: f.key, control: name(control), area: r(covered),
          text: `${f.key} (${r(f.box.left)},${r(f.box.top)})-(${r(f.box.right)},${r(f.box.bottom)}) covers ${name(control)} (${r(box.left)},${r(box.top)})-(${r(box.right)},${r(box.bottom)})`,
        });
      }
    }
    return found as FloatingOverlap[];
  }, { floating: FLOATING, controls: CONTROLS, within });
}

/** Which floating elements show now. */
export async function floatingShown(page: Page): Promise<FloatingName[]> {
  return page.evaluate((floating) =>
    Object.entries(floating)
      .filter(([, selector]) => [...document.querySelectorAll(selector)].some((el) => el.checkVisibility({ visibilityProperty: true }) && el.getBoundingClientRect().width > 0))
      .map(([key]) => key), FLOATING) as Promise<FloatingName[]>;
}
