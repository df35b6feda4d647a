import { describe, expect, it } from 'vitest';
import { dayCounter } from '@pass/events/kernel';
import { replayRequestOf } from './moment';

const now = Date.parse('2026-03-10T12:00:00.000Z');

describe('the moment picked for a replay', () => {
  it('day N is the end of the Nth day since the start date, where the day counter reads N', () => {
    const built = replayRequestOf({ kind: 'day', day: 3 }, '01/01/2026', now);
    expect(built).toEqual({ request: { at: '2026-01-04T23:59:59.999Z' } });
    const at = Date.parse((built as { request: { at: string } }).request.at);
    expect(dayCounter('01/01/2026', at)).toBe(3);
    expect(dayCounter('01/01/2026', at + 1)).toBe(4);
    expect(replayRequestOf({ kind: 'day', day: 0 }, '01/01/2026', now)).toEqual({ request: { at: '2026-01-01T23:59:59.999Z' } });
  });

  it("today's day is replayed up to now; a later day, a bad number or no start date is refused", () => {
    expect(replayRequestOf({ kind: 'day', day: 68 }, '01/01/2026', now)).toEqual({ request: { at: '2026-03-10T12:00:00.000Z' } });
    expect(replayRequestOf({ kind: 'day', day: 69 }, '01/01/2026', now)).toEqual({ error: 'El día 69 aún no ha llegado: hoy es el día 68.' });
    expect(replayRequestOf({ kind: 'day', day: 1.5 }, '01/01/2026', now)).toEqual({ error: 'El día es un número entero desde 0.' });
    expect(replayRequestOf({ kind: 'day', day: Number.NaN }, '01/01/2026', now)).toEqual({ error: 'El día es un número entero desde 0.' });
    expect(replayRequestOf({ kind: 'day', day: 2 }, '', now)).toMatchObject({ error: expect.stringContaining('Sin fecha de inicio') });
  });

  it('a date and time is read in the admin’s time zone; a position is sent as typed', () => {
    expect(replayRequestOf({ kind: 'date', local: '2026-03-01T10:30' }, '', now)).toEqual({ request: { at: new Date(2026, 2, 1, 10, 30).toISOString() } });
    expect(replayRequestOf({ kind: 'date', local: '' }, '', now)).toEqual({ error: 'Elige una fecha y una hora.' });
    expect(replayRequestOf({ kind: 'position', position: ' 1234 ' }, '', now)).toEqual({ request: { position: '1234' } });
    expect(replayRequestOf({ kind: 'position', position: '' }, '', now)).toEqual({ error: 'Escribe una posición del registro de eventos.' });
  });
});
