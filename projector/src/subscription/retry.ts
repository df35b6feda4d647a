const RETRY_MIN_MS = 200;
const RETRY_MAX_MS = 10_000;

/**
 * The delay before a failed subscription is restarted: RETRY_MIN_MS, doubling on every failure
 * up to RETRY_MAX_MS, back to the minimum once a batch is stored. A store or Redis that stays
 * down is then asked every 10 s, not hammered.
 */
export class RetryBackoff {
  private delay = RETRY_MIN_MS;
  private timer: NodeJS.Timeout | undefined;

  /** How long the next `schedule` waits. */
  get delayMs(): number {
    return this.delay;
  }

  schedule(retry: () => void): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      retry();
    }, this.delay);
    this.delay = Math.min(this.delay * 2, RETRY_MAX_MS);
  }

  reset(): void {
    this.delay = RETRY_MIN_MS;
  }

  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
