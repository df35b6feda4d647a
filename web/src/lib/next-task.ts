/**
 * Resolves in a later task of the event loop, so the browser can paint and answer input between
 * two pieces of start-up work. A phone's main thread then never holds one long task for the whole
 * start (Lighthouse counts every task past 50 ms as blocking; docs/benchmarks/history/web.md).
 * `scheduler.yield` (Chromium) keeps the continuation ahead of other queued tasks; elsewhere a
 * message to a channel is the earliest macrotask (setTimeout may be clamped to 4 ms).
 */
export function nextTask(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  if (typeof scheduler?.yield === 'function') return scheduler.yield();
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}
