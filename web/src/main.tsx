// First: no eval probe under the Content-Security-Policy (see the module). zod builds its
// parsers when a schema is created, so this must run before any module that creates one.
import '@pass/events/zod-jitless';
import { pageShown, preloadBootChunks } from './app/boot/chunks';
import { nextTask } from './lib/next-task';
import './styles.css';

/**
 * The page is painted from its build-time HTML before any of this runs. The start-up code comes in
 * a few chunks (vite.config.ts, BOOT_CHUNKS), which the HTML names and this fetches together once
 * the page and its largest image are on screen, so their download never competes with either, then
 * runs one per task: the libraries first, then the app. Run as one module graph they held a phone's
 * main thread for one task of ~250 ms (Lighthouse's 4× slower CPU). Figures in docs/benchmarks.md.
 *
 * It does not wait for the page's `load` (every image and frame): the buttons of the painted page
 * do nothing until hydration. A button clicked before then (the menu's, a carousel arrow) is
 * clicked again once the app has taken over the page (`replayEarlyClicks`).
 */
const stages: (() => Promise<unknown>)[] = [
  () => import('./app/boot/react'),
  () => import('./app/boot/router'),
  () => import('./app/boot/state'),
  () => import('./app/boot/toast'),
];

/**
 * Notes the buttons of the painted page clicked before the app runs; the returned function clicks
 * them again, in order. Hydration keeps the page's elements, so they are the same buttons, now
 * React's (which hydrates a clicked part first).
 */
function replayEarlyClicks(container: HTMLElement): () => void {
  const clicked: HTMLElement[] = [];
  const note = (event: MouseEvent) => {
    const button = event.target instanceof Element ? event.target.closest('button') : null;
    if (button && container.contains(button)) clicked.push(button);
  };
  document.addEventListener('click', note, true);
  return () => {
    document.removeEventListener('click', note, true);
    for (const button of clicked) if (button.isConnected) button.click();
  };
}

async function boot(container: HTMLElement): Promise<void> {
  const replay = replayEarlyClicks(container);
  await pageShown(document);
  preloadBootChunks(document);
  for (const stage of stages) {
    await stage();
    await nextTask();
  }
  const { start } = await import('./app/start');
  await start(container);
  replay();
}

const container = document.getElementById('root');
if (!container) throw new Error('#root is missing from index.html');
void boot(container);
