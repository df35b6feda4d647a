const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Polls until `check` passes or the time is up (then fails with its last error). */
export async function eventually(check: () => void | Promise<void>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(10);
    }
  }
}
