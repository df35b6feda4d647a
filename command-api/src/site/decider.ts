import { assertNever, type DomainEvent, type SiteCommand } from '@pass/events';
import { eventGuard, type Decider } from '../kernel/decider';

export const SITE_EVENT_TYPES = ['MainDataEdited', 'AdViewsReset', 'ChatCleared'] as const;
export type SiteEvent = Extract<DomainEvent, { type: (typeof SITE_EVENT_TYPES)[number] }>;

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

export function decideSite(command: SiteCommand, state: SiteState): SiteEvent[] {
  const at = command.now.toISOString();
  switch (command.type) {
    case 'EditMainData': {
      const { cpm, donations, startDate, editedBy } = command.data;
      return [{ type: 'MainDataEdited', data: { cpm, donations, startDate, editedBy, editedAt: at } }];
    }
    case 'ResetAdViews':
      return [{ type: 'AdViewsReset', data: { views: command.data.views, resetBy: command.data.resetBy, resetAt: at } }];
    case 'ClearChat':
      return [{ type: 'ChatCleared', data: { clearedBy: command.data.clearedBy, clearedAt: at } }];
    case 'InitializeSite': {
      if (state.initialized) return [];
      const { startDate, initializedBy } = command.data;
      return [{ type: 'MainDataEdited', data: { cpm: state.cpm, donations: state.donations, startDate, editedBy: initializedBy, editedAt: at } }];
    }
    default:
      return assertNever(command);
  }
}

export const siteDecider: Decider<SiteCommand, SiteState, SiteEvent> = {
  name: 'site',
  initialState: initialSiteState,
  isEvent: eventGuard(SITE_EVENT_TYPES),
  evolve: evolveSite,
  decide: decideSite,
};
