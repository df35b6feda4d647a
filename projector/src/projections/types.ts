import type { ChatMessageView, DomainEvent, GlobalPosition, GlobalPostView, ProgressDay } from '@pass/events';
import type { MainRecord, WriteBatch } from '../read-models/types';

// The types a batch's projections, its runner (batch.ts) and the projector around them share:
// here, below every projection, so none of them imports the runner back.

export interface PositionedEvent {
  position: GlobalPosition;
  event: DomainEvent;
  /**
   * Its personal fields were left sealed: a chat line its catch-up batch takes out of the history
   * (chatLinesLeavingHistory), counted but never stored.
   */
  sealed?: true;
}

/** What changed in a batch that connected browsers should hear about once it is stored. */
export type LiveNotice =
  /**
   * The figures changed: `main` is the record as the batch stored it, so the broadcast needs no
   * read of it; the countries are read again only when `countriesChanged` (LivePusher).
   */
  | { kind: 'mainData'; main: MainRecord; countriesChanged: boolean }
  | { kind: 'globalMember' | 'globalMessage'; post: GlobalPostView }
  | { kind: 'chatMessage'; message: ChatMessageView }
  | { kind: 'chatCleared' }
  /** The progress read model's current (last) day changed: `day` as the batch stored it. */
  | { kind: 'progress'; day: ProgressDay };

export interface ProjectedBatch {
  /** null when every event was already projected (a re-delivery). */
  batch: WriteBatch | null;
  live: LiveNotice[];
  /** Events actually projected (re-delivered ones excluded). */
  applied: number;
}
