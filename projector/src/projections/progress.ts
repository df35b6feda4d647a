import { assertNever, fundsRaised, quietDay, utcDayOf, type DomainEventOf, type ProgressDay } from '@pass/events';
import { projection } from './projection';
import type { WorkingCopy } from './working-copy';

/**
 * Progress toward the goal, one entry per UTC day on which something was counted (GET
 * /api/progress; gaps are filled on read by `continuousProgress`). An event counts on the UTC day
 * of its own time (the `…At` of its data), never the projector's clock. At each event the day's
 * totals are set to the figures as they stand after it: passes taken (`sold`, the passes members
 * received), funds raised (`fundsRaised` over the cpm, donations, ad views and purchases in force
 * then) and members (a claim that gives a user their first passes adds one, erasing a member takes
 * one away); so a day keeps the totals of its end. Its own counts: free points awarded, points
 * bought net of refunds and reversals that day, chat messages sent.
 * An event timed before the last stored day (clocks of two command-apis a moment apart around
 * midnight) counts on that last day: days only ever follow one another, so a batch needs only the
 * last stored day and never rewrites an earlier one.
 * Runs after main data (the figures it reads are then the event's), before nothing.
 */
export const progress = projection({
  handles: ['FreePointAwarded', 'PointsPurchased', 'PurchaseReversed', 'PassesClaimed', 'ChatMessageSent', 'MemberErased', 'MainDataEdited', 'AdViewsReset'],
  evolve(copy, event) {
    const day = dayFor(copy, timeOf(event));
    switch (event.type) {
      case 'FreePointAwarded':
        day.freePoints += event.data.points;
        break;
      case 'PointsPurchased':
        day.pointsBought += event.data.points;
        break;
      case 'PurchaseReversed':
        day.pointsBought -= event.data.points;
        break;
      case 'PassesClaimed': {
        // The users projection has added the passes already: a member now, and not before.
        const row = copy.row(event.data.userId);
        if (row && !copy.progressErased.has(event.data.userId) && row.passes > 0 && row.passes - event.data.passes <= 0) day.members += 1;
        break;
      }
      case 'ChatMessageSent':
        day.chatMessages += 1;
        break;
      case 'MemberErased': {
        // Counted once, however often a batch holds the erasure; a row erased earlier is gone.
        const row = copy.row(event.data.userId);
        if (row && !copy.progressErased.has(event.data.userId) && row.passes > 0) day.members -= 1;
        copy.progressErased.add(event.data.userId);
        break;
      }
      case 'MainDataEdited':
      case 'AdViewsReset':
        break;
      default:
        assertNever(event);
    }
    day.passesTaken = copy.main.sold;
    day.fundsRaised = fundsRaised(copy.main);
  },
  writes(copy, out) {
    const stored = copy.stored.progressDay;
    let changed: ProgressDay | undefined;
    for (const day of copy.progressDays) {
      if (stored && day.date === stored.date && sameDay(day, stored)) continue;
      out.push({ op: 'progressDay', day });
      changed = day;
    }
    if (changed) copy.live.push({ kind: 'progress', day: copy.progressDays.at(-1)! });
  },
});

type Handled = DomainEventOf<(typeof progress.handles)[number]>;

/** The time an event happened, from its data. */
function timeOf(event: Handled): string {
  switch (event.type) {
    case 'FreePointAwarded':
      return event.data.awardedAt;
    case 'PointsPurchased':
      return event.data.purchasedAt;
    case 'PurchaseReversed':
      return event.data.reversedAt;
    case 'PassesClaimed':
      return event.data.claimedAt;
    case 'ChatMessageSent':
      return event.data.sentAt;
    case 'MemberErased':
      return event.data.erasedAt;
    case 'MainDataEdited':
      return event.data.editedAt;
    case 'AdViewsReset':
      return event.data.resetAt;
    default:
      return assertNever(event);
  }
}

/** The batch's entry for the day of `time` (the last day, if that is later), copied or opened on first use. */
function dayFor(copy: WorkingCopy, time: string): ProgressDay {
  const days = copy.progressDays;
  const last = days.length > 0 ? days[days.length - 1]! : copy.stored.progressDay;
  const date = utcDayOf(time);
  if (last && date <= last.date) {
    if (days.length > 0) return last;
    const copied = { ...last };
    days.push(copied);
    return copied;
  }
  const opened = quietDay(date, last);
  days.push(opened);
  return opened;
}

/** Same figures (ProgressDay is flat). */
function sameDay(a: ProgressDay, b: ProgressDay): boolean {
  return (
    a.date === b.date &&
    a.passesTaken === b.passesTaken &&
    a.members === b.members &&
    a.fundsRaised === b.fundsRaised &&
    a.freePoints === b.freePoints &&
    a.pointsBought === b.pointsBought &&
    a.chatMessages === b.chatMessages
  );
}
