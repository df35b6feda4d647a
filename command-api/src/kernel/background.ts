/**
 * Work a request starts but does not wait for (a reset mail: its hash, append and SMTP round
 * trip stay off the response, so a registered address answers as fast as an unknown one).
 * `settled()` waits for what is running (shutdown, tests); a failure is the job's own to log.
 */
export class BackgroundWork {
  private readonly running = new Set<Promise<void>>();

  run(job: () => Promise<void>): void {
    const done: Promise<void> = job()
      .catch(() => undefined)
      .finally(() => this.running.delete(done));
    this.running.add(done);
  }

  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }
}
