import { describe, it } from 'vitest';
import { deciderSpec } from '../kernel/decider-spec';
import { siteDecider } from './decider';
import { emailDecider } from '../users/email-decider';
import { adminDecider } from '../admin/decider';

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

describe('email reservation', () => {
  const spec = deciderSpec(emailDecider);
  it('reserves an email for one account only', () => {
    const reserve = { type: 'ReserveEmail', data: { email: 'ana@example.com', userId: 'u1' }, now } as const;
    spec.given([]).when(reserve).then([{ type: 'EmailReserved', data: { email: 'ana@example.com', userId: 'u1', reservedAt: iso } }]);
    spec.given([{ type: 'EmailReserved', data: { email: 'ana@example.com', userId: 'u0', reservedAt: iso } }]).when(reserve).thenThrows('already_exists');
  });
});

describe('admin', () => {
  const spec = deciderSpec(adminDecider);
  it('registers an admin once', () => {
    const register = { type: 'RegisterAdmin', data: { adminId: 'a1', email: 'boss@example.com', passwordHash: 'h' }, now } as const;
    spec.given([]).when(register).then([{ type: 'AdminRegistered', data: { adminId: 'a1', email: 'boss@example.com', passwordHash: 'h', registeredAt: iso } }]);
    spec.given([{ type: 'AdminRegistered', data: { adminId: 'a1', email: 'boss@example.com', passwordHash: 'h', registeredAt: iso } }]).when(register).thenThrows('already_exists');
  });
});
