import { describe, expect, it } from 'vitest';
import { MAX_PAIRED_WORDS, pairSet, parseQuery, rowIndexSets, searchPlan, UNPAIRED_SET } from './search';

const at = '2026-11-03T09:00:00.000Z';

describe('search index sets of a row', () => {
  it('holds each word, the date and every pair of words, never a pair with the date', () => {
    expect([...rowIndexSets({ fullname: 'María López', country: 'United States', createdAt: at })].sort()).toEqual(
      [
        'ix:maria',
        'ix:lopez',
        'ix:united',
        'ix:states',
        'ix:03/11/2026',
        'ix:lopez+maria',
        'ix:maria+united',
        'ix:maria+states',
        'ix:lopez+united',
        'ix:lopez+states',
        'ix:states+united',
      ].sort(),
    );
  });

  it('names a pair the same whichever word comes first', () => {
    expect(pairSet('peru', 'ana')).toBe('ix:ana+peru');
    expect(pairSet('ana', 'peru')).toBe('ix:ana+peru');
  });

  it(`gives a row with more than ${MAX_PAIRED_WORDS} words the unpaired set instead of pairs`, () => {
    const many = Array.from({ length: MAX_PAIRED_WORDS + 1 }, (_, i) => `w${i}`);
    const sets = [...rowIndexSets({ fullname: many.slice(0, 10).join(' '), country: many.slice(10).join(' '), createdAt: at })];
    expect(sets.filter((s) => s.includes('+'))).toEqual([UNPAIRED_SET]);
    expect(sets).toHaveLength(MAX_PAIRED_WORDS + 1 + 1 + 1);
    const most = [...rowIndexSets({ fullname: many.slice(0, 10).join(' '), country: many.slice(10, MAX_PAIRED_WORDS).join(' '), createdAt: at })];
    expect(most.filter((s) => s.includes('+'))).toHaveLength((MAX_PAIRED_WORDS * (MAX_PAIRED_WORDS - 1)) / 2);
    expect(most).not.toContain(UNPAIRED_SET);
  });
});

describe('search plan of a query', () => {
  it('lists every pair of the query words with their positions, and none with a date', () => {
    expect(searchPlan(parseQuery('Peru ana 01/11/2026 Ana', false).sets)).toEqual({
      sets: ['ix:01/11/2026', 'ix:ana', 'ix:peru'],
      pairs: ['ix:ana+peru'],
      pairWords: [[1, 2]],
    });
    expect(searchPlan(parseQuery('ana maria peru', false).sets).pairs).toEqual(['ix:ana+maria', 'ix:ana+peru', 'ix:maria+peru']);
    expect(searchPlan(parseQuery('ana', false).sets)).toEqual({ sets: ['ix:ana'], pairs: [], pairWords: [] });
  });
});
