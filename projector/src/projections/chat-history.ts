import { CHAT_HISTORY_LIMIT } from '../read-models/types';

// Which chat lines have left the chat history: a rule of the chat read model that the catch-up
// (subscription/) needs without the projection itself.

/**
 * Follows chat lines, clears and erasures in order and tells which earlier lines have left the
 * history for good: a line followed by as many lines as the history keeps, or by a clear, with no
 * member's lines taken out in between (an erasure could leave room for an older line). `T` names a
 * line (an index, say). The catch-up's write window and sealed lines both follow this one rule.
 */
export class HistoryLines<T> {
  private lines: T[] = [];
  private from = 0;

  /** A new line; returns the line it pushes out of the history, if any. */
  line(id: T): T | undefined {
    this.lines.push(id);
    return this.lines.length - this.from > CHAT_HISTORY_LIMIT ? this.lines[this.from++] : undefined;
  }

  /** A clear; returns every line it takes out. */
  cleared(): T[] {
    const gone = this.lines.slice(this.from);
    this.erased();
    return gone;
  }

  /** A member's lines taken out: no line before it is known to be gone on account of later ones. */
  erased(): void {
    this.lines = [];
    this.from = 0;
  }
}

/**
 * The chat lines of a batch that the batch itself takes out of the history (HistoryLines). Stored
 * with the batch, such a line is gone by its end, and its live notice too (a catch-up pushes the
 * history instead once a batch holds more lines than a browser's panel). A catch-up leaves their
 * texts sealed and counts them only (WorkingCopy.sealed). Returns their indexes in `events`.
 */
export function chatLinesLeavingHistory(events: readonly { type: string }[]): number[] {
  const leaving: number[] = [];
  const history = new HistoryLines<number>();
  events.forEach(({ type }, i) => {
    if (type === 'ChatMessageSent') {
      const gone = history.line(i);
      if (gone !== undefined) leaving.push(gone);
    } else if (type === 'ChatCleared') {
      for (const gone of history.cleared()) leaving.push(gone);
    } else if (type === 'MemberErased') {
      history.erased();
    }
  });
  return leaving;
}
