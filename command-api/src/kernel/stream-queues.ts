/** Commands queued on one stream; `reject` answers them all when their turn fails as a whole. */
export interface Waiting {
  reject(error: unknown): void;
}

/** Commands decided together and appended in one write when they queue up on one stream. */
const MAX_BATCH = 64;

/**
 * One queue per stream in this process: commands on a stream never race each other, and those
 * that arrived while a turn was in flight take the next turn together (up to MAX_BATCH).
 */
export class StreamQueues<T extends Waiting> {
  private readonly queues = new Map<string, { waiting: T[]; draining: boolean }>();

  constructor(private readonly takeTurn: (streamId: string, batch: T[]) => Promise<void>) {}

  push(streamId: string, item: T): void {
    let queue = this.queues.get(streamId);
    if (!queue) {
      queue = { waiting: [], draining: false };
      this.queues.set(streamId, queue);
    }
    queue.waiting.push(item);
    if (!queue.draining) void this.drain(streamId, queue);
  }

  private async drain(streamId: string, queue: { waiting: T[]; draining: boolean }): Promise<void> {
    queue.draining = true;
    try {
      while (queue.waiting.length > 0) {
        const batch = queue.waiting.splice(0, MAX_BATCH);
        try {
          await this.takeTurn(streamId, batch);
        } catch (error) {
          for (const item of batch) item.reject(error);
        }
      }
    } finally {
      queue.draining = false;
      if (this.queues.get(streamId) === queue && queue.waiting.length === 0) this.queues.delete(streamId);
    }
  }
}
