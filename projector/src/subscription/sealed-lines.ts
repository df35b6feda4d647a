import type { RecordedEvent } from '@pass/events';
import type { PositionedEvent } from '../projections/types';
import { chatLinesLeavingHistory } from '../projections/chat-history';

/**
 * The chat lines a catch-up leaves sealed: a batch that takes a line out of the history again
 * (chatLinesLeavingHistory) stores nothing of its texts, so they are not decrypted
 * (docs/benchmarks/history/rebuild.md, "Less for Redis and the main thread"). The store asks
 * `choose` before it delivers a batch (SubscribeToAllOptions.sealedEvents) and hands the chosen
 * events back as the same objects; `mark` then flags them in the parsed batch. A live batch
 * leaves none sealed: its lines' notices go out one by one.
 */
export class SealedLines {
  private readonly chosen = new WeakSet<RecordedEvent>();

  constructor(private readonly catchingUp: () => boolean) {}

  choose(events: readonly RecordedEvent[]): ReadonlySet<RecordedEvent> {
    const sealed = new Set<RecordedEvent>();
    if (!this.catchingUp()) return sealed;
    for (const i of chatLinesLeavingHistory(events)) {
      sealed.add(events[i]!);
      this.chosen.add(events[i]!);
    }
    return sealed;
  }

  /**
   * `parsed` (the first events of `recorded`, all of them unless one was unreadable) with the
   * sealed ones flagged. When the batch was cut short by an unreadable event, it also ends before
   * the first sealed line the shorter batch does not take out of the history: that line is
   * delivered again, opened or not, by the subscription that resumes from the stored checkpoint.
   */
  mark(recorded: readonly RecordedEvent[], parsed: PositionedEvent[]): PositionedEvent[] {
    let any = false;
    for (let i = 0; i < parsed.length; i++) {
      if (!this.chosen.has(recorded[i]!)) continue;
      parsed[i]!.sealed = true;
      any = true;
    }
    if (!any || parsed.length === recorded.length) return parsed;
    const stillLeaving = new Set(chatLinesLeavingHistory(parsed.map((positioned) => positioned.event)));
    const cut = parsed.findIndex((positioned, i) => positioned.sealed && !stillLeaving.has(i));
    return cut === -1 ? parsed : parsed.slice(0, cut);
  }
}
