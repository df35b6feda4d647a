import { assertNever, isEventOf, type CommandOf, type SiteCommand, type SiteEvent } from '@pass/events';
import type { Decider } from '../kernel/decider';

/** The admin's site settings. No invariant beyond the form rules, which the route checks. */
export interface SiteState {
  cpm: number;
  donations: number;
  startDate: string;
  views: number;
  chatClearedAt: string | null;
  /** Main data was recorded at least once (first-start initialization then does nothing). */
  initialized: boolean;
}

export const initialSiteState = (): SiteState => ({ cpm: 0, donations: 0, startDate: '', views: 0, chatClearedAt: null, initialized: false });

export function evolveSite(state: SiteState, event: SiteEvent): SiteState {
  switch (event.type) {
    case 'MainDataEdited':
      return { ...state, cpm: event.data.cpm, donations: event.data.donations, startDate: event.data.startDate, initialized: true };
    case 'AdViewsReset':
      return { ...state, views: event.data.views };
    case 'ChatCleared':
      return { ...state, chatClearedAt: event.data.clearedAt };
    default:
      return assertNever(event);
  }
}

export function decideEditMainData(command: CommandOf<'EditMainData'>): SiteEvent[] {
  const { cpm, donations, startDate, editedBy } = command.data;
  return [{ type: 'MainDataEdited', data: { cpm, donations, startDate, editedBy, editedAt: command.now.toISOString() } }];
}

export function decideResetAdViews(command: CommandOf<'ResetAdViews'>): SiteEvent[] {
  return [{ type: 'AdViewsReset', data: { views: command.data.views, resetBy: command.data.resetBy, resetAt: command.now.toISOString() } }];
}

export function decideClearChat(command: CommandOf<'ClearChat'>): SiteEvent[] {
  return [{ type: 'ChatCleared', data: { clearedBy: command.data.clearedBy, clearedAt: command.now.toISOString() } }];
}

/** First start: records the start date, unless main data was ever recorded (by the admin or an earlier start). */
export function decideInitializeSite(command: CommandOf<'InitializeSite'>, state: SiteState): SiteEvent[] {
  if (state.initialized) return [];
  const { startDate, initializedBy } = command.data;
  return [{ type: 'MainDataEdited', data: { cpm: state.cpm, donations: state.donations, startDate, editedBy: initializedBy, editedAt: command.now.toISOString() } }];
}

export function decideSite(command: SiteCommand, state: SiteState): SiteEvent[] {
  switch (command.type) {
    case 'EditMainData':
      return decideEditMainData(command);
    case 'ResetAdViews':
      return decideResetAdViews(command);
    case 'ClearChat':
      return decideClearChat(command);
    case 'InitializeSite':
      return decideInitializeSite(command, state);
    default:
      return assertNever(command);
  }
}

export const siteDecider: Decider<SiteCommand, SiteState, SiteEvent> = {
  name: 'site',
  initialState: initialSiteState,
  isEvent: isEventOf('site'),
  evolve: evolveSite,
  decide: decideSite,
};
