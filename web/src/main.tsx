// First: no eval probe under the Content-Security-Policy (see the module). zod builds its
// parsers when a schema is created, so this must run before any module that creates one.
import '@pass/events/zod-jitless';
import { pageShown, preloadBootChunks } from './app/boot/chunks';
import { nextTask } from './lib/next-task';
import './styles.css';

/**
 * The page is painted from its HTML before this runs. The start-up chunks (vite.config.ts,
 * BOOT_CHUNKS) are fetched together once the page and its largest image are on screen, then run one
 * per task, libraries first, so no single task holds a phone's main thread for the whole start
 * (docs/benchmarks/history/web.md, "Start-up off the critical path"). It does not wait for `load`:
 * a button clicked before hydration is clicked again once the app runs (`replayEarlyClicks`).
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
