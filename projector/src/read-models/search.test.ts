import { describe, expect, it } from 'vitest';
import {
  MAX_PAIRED_WORDS,
  MAX_PREFIX,
  maskedEmailSets,
  pairSet,
  parseQuery,
  prefixTokens,
  rowHasWordsStarting,
  rowIndexSets,
  POSTED_SET,
  searchPlan,
  UNPAIRED_SET,
} from './search';

const at = '2026-11-03T09:00:00.000Z';

describe('search tokens of a word', () => {
  it('are its prefixes from 2 characters, up to the cap', () => {
    expect(prefixTokens('janet')).toEqual(['ja', 'jan', 'jane', 'janet']);
    expect(prefixTokens('liechtenstein')).toEqual(['li', 'lie', 'liec', 'liech', 'liecht', 'liechte', 'liechten', 'liechtens', 'liechtenst']);
    expect(prefixTokens('liechtenstein').at(-1)).toHaveLength(MAX_PREFIX);
  });

  it('are the word itself for a one-letter word', () => {
    expect(prefixTokens('a')).toEqual(['a']);
  });
});

describe('search index sets of a row', () => {
  it('holds each prefix of each word, the date, every pair of word starts (never one with the date) and the posted set', () => {
    expect([...rowIndexSets({ fullname: 'María López', country: 'Peru', createdAt: at })].sort()).toEqual(
      [
        ...['ma', 'mar', 'mari', 'maria', 'lo', 'lop', 'lope', 'lopez', 'pe', 'per', 'peru'].map((p) => `ix:${p}`),
        'ix:03/11/2026',
        ...['lo+ma', 'ma+pe', 'lo+pe', 'lop+mar', 'mar+per', 'lop+per'].map((p) => `ix:${p}`),
        'ix:/posted',
      ].sort(),
    );
  });

  it('puts a row in the posted set only while its card is on the site', () => {
    expect(rowIndexSets({ fullname: 'Ana', country: 'Peru', createdAt: at }).has(POSTED_SET)).toBe(true);
    expect(rowIndexSets({ fullname: '', country: '', createdAt: at, email: 'ana@mail.org' }).has(POSTED_SET)).toBe(false);
  });

  it('pairs two words with one start once, and never with themselves', () => {
    const sets = [...rowIndexSets({ fullname: 'Mario Martínez', country: 'Peru', createdAt: at })];
    expect(sets.filter((s) => s.includes('+'))).toEqual(['ix:ma+pe', 'ix:mar+per']);
    const mateo = [...rowIndexSets({ fullname: 'Maria Mateo', country: 'Peru', createdAt: at })];
    expect(mateo.filter((s) => s.includes('+'))).toEqual(['ix:ma+pe', 'ix:mar+mat', 'ix:mar+per', 'ix:mat+per']);
  });

  it('names a pair the same whichever word comes first', () => {
    expect(pairSet('pe', 'an')).toBe('ix:an+pe');
    expect(pairSet('an', 'pe')).toBe('ix:an+pe');
  });

  it(`gives a row with more than ${MAX_PAIRED_WORDS} word starts the unpaired set instead of pairs`, () => {
    const starts = 'abcdefghijklmnopqrstuvwxyz';
    const many = Array.from({ length: MAX_PAIRED_WORDS + 1 }, (_, i) => `${starts[i]}x`);
    const sets = [...rowIndexSets({ fullname: many.slice(0, 10).join(' '), country: many.slice(10).join(' '), createdAt: at })];
    expect(sets.filter((s) => s.includes('+'))).toEqual([UNPAIRED_SET]);
    const most = [...rowIndexSets({ fullname: many.slice(0, 10).join(' '), country: many.slice(10, MAX_PAIRED_WORDS).join(' '), createdAt: at })];
    expect(most.filter((s) => s.includes('+'))).toHaveLength((MAX_PAIRED_WORDS * (MAX_PAIRED_WORDS - 1)) / 2);
    expect(most).not.toContain(UNPAIRED_SET);
  });

  it('holds the shown parts of the masked e-mail of a row without a name, as registry-only sets', () => {
    const sets = [...rowIndexSets({ fullname: '', country: '', createdAt: at, email: 'Janet.Doe@mail.com' })];
    expect(sets.sort()).toEqual(['ix:03/11/2026', 'ix:@co', 'ix:@com', 'ix:@ja', 'ix:@jan', 'ix:@ma', 'ix:@mai', 'ix:@mail'].sort());
  });

  it('never holds the e-mail of a row with a name, or with any word (its rows and masked rows stay apart)', () => {
    const sets = [...rowIndexSets({ fullname: 'Ann', country: 'Peru', createdAt: at, email: 'janet@mail.com' })];
    expect(sets.filter((s) => s.startsWith('ix:@'))).toEqual([]);
    const country = [...rowIndexSets({ fullname: '', country: 'Peru', createdAt: at, email: 'janet@mail.com' })];
    expect(country.filter((s) => s.startsWith('ix:@'))).toEqual([]);
  });

  it('never indexes the hidden part of a masked e-mail', () => {
    expect(maskedEmailSets('janet.doe@mail.com').some((s) => /net|doe/.test(s))).toBe(false);
    expect(maskedEmailSets('jo@x.org')).toEqual(['ix:@jo', 'ix:@x', 'ix:@or', 'ix:@org']);
  });
});

describe('search query', () => {
  it('looks each word up by its prefix set, folded, cut to the cap', () => {
    expect(parseQuery('Mar LÓ', false)).toEqual({ sets: ['ix:mar', 'ix:lo'] });
    expect(parseQuery('liechtensteiner', false)).toEqual({ sets: ['ix:liechtenst'], check: ['liechtensteiner'] });
  });

  it('checks a word longer than the cap against the row: its name and country words, and in the registry what its mask shows', () => {
    const row = { fullname: 'Ann Liechtensteiner', country: 'Peru', createdAt: at };
    expect(rowHasWordsStarting(row, ['liechtenstein'], false)).toBe(true);
    expect(rowHasWordsStarting(row, ['liechtensteinx'], false)).toBe(false);
    const masked = { fullname: '', country: '', createdAt: at, email: 'janet@universities.org' };
    expect(rowHasWordsStarting(masked, ['universitie'], true)).toBe(true);
    expect(rowHasWordsStarting(masked, ['universitie'], false)).toBe(false);
  });

  it('also looks registry words up in the masked e-mail sets, with a date as it is', () => {
    expect(parseQuery('jan 03/11/2026', true)).toEqual({ sets: ['ix:jan', 'ix:03/11/2026'], registrySets: ['ix:@jan', 'ix:03/11/2026'] });
    expect(parseQuery('jan***@mail.com', true).registrySets).toEqual(['ix:@jan', 'ix:@mail', 'ix:@com']);
    expect(parseQuery('03/11/2026', true)).toEqual({ sets: ['ix:03/11/2026'] });
  });

  it('never looks the ranking up in the masked e-mail sets', () => {
    expect(parseQuery('jan***@mail.com', false)).toEqual({ sets: ['ix:jan', 'ix:mail', 'ix:com'] });
  });

  it('looks a whole address up whole, in the registry', () => {
    expect(parseQuery(' Janet@Mail.com ', true)).toEqual({ sets: [], email: 'janet@mail.com' });
  });
});

describe('search plan of a query', () => {
  it('lists a pair for every two words of different starts, and none with a date', () => {
    expect(searchPlan(parseQuery('Peru ana 01/11/2026 Ana', false).sets)).toEqual({
      sets: ['ix:01/11/2026', 'ix:ana', 'ix:peru'],
      pairs: ['ix:ana+per'],
      pairWords: [[1, -1]],
    });
    expect(searchPlan(parseQuery('ana maria peru', false).sets).pairs).toEqual(['ix:ana+mar', 'ix:ana+per', 'ix:mar+per']);
    expect(searchPlan(parseQuery('ana', false).sets)).toEqual({ sets: ['ix:ana'], pairs: [], pairWords: [] });
  });

  it('pairs by two-letter starts when a word has two letters, by three-letter starts otherwise', () => {
    expect(searchPlan(parseQuery('mar lo', false).sets)).toEqual({ sets: ['ix:lo', 'ix:mar'], pairs: ['ix:lo+ma'], pairWords: [[0, -1]] });
    expect(searchPlan(parseQuery('maria lopez', false).sets)).toEqual({ sets: ['ix:lopez', 'ix:maria'], pairs: ['ix:lop+mar'], pairWords: [[-1, -1]] });
  });

  it('pairs no two words of one start, which one word of a row may both match', () => {
    expect(searchPlan(parseQuery('mar mari', false).sets).pairs).toEqual([]);
    expect(searchPlan(parseQuery('mari mateo', false).sets).pairs).toEqual(['ix:mar+mat']);
  });
});

describe('search plan of the masked e-mail sets', () => {
  it('pairs none of them (they have no pair sets)', () => {
    expect(searchPlan(parseQuery('jan mail', true).registrySets!)).toEqual({ sets: ['ix:@jan', 'ix:@mail'], pairs: [], pairWords: [] });
  });
});
