import { describe, it } from 'vitest';
import { deciderSpec } from '../kernel/decider-spec';
import { siteDecider } from './decider';

const now = new Date('2026-01-01T10:00:00.000Z');
const iso = now.toISOString();

describe('site', () => {
  const spec = deciderSpec(siteDecider);
  it('records the main data, the ad views and a chat clear', () => {
    spec.given([]).when({ type: 'EditMainData', data: { cpm: 2.5, donations: 10, startDate: '1/1/2026', editedBy: 'a1' }, now }).then([
      { type: 'MainDataEdited', data: { cpm: 2.5, donations: 10, startDate: '1/1/2026', editedBy: 'a1', editedAt: iso } },
    ]);
    spec.given([]).when({ type: 'ResetAdViews', data: { views: 0, resetBy: 'a1' }, now }).then([{ type: 'AdViewsReset', data: { views: 0, resetBy: 'a1', resetAt: iso } }]);
    spec.given([]).when({ type: 'ClearChat', data: { clearedBy: 'a1' }, now }).then([{ type: 'ChatCleared', data: { clearedBy: 'a1', clearedAt: iso } }]);
  });
});

describe('first-start initialization', () => {
  const spec = deciderSpec(siteDecider);
  const initialize = { type: 'InitializeSite', data: { startDate: '21/11/2026', initializedBy: 'bootstrap' }, now } as const;
  it('records the start date on a fresh site', () => {
    spec.given([]).when(initialize).then([
      { type: 'MainDataEdited', data: { cpm: 0, donations: 0, startDate: '21/11/2026', editedBy: 'bootstrap', editedAt: iso } },
    ]);
  });
  it('leaves main data the admin (or an earlier start) recorded alone', () => {
    spec
      .given([{ type: 'MainDataEdited', data: { cpm: 2.5, donations: 10, startDate: '', editedBy: 'a1', editedAt: iso } }])
      .when(initialize)
      .then([]);
  });
});
