import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { DEFAULT_COUNTRY, LIMITS } from '../constants';
import { COUNTRIES, isListedCountry, listedCountryOrNone } from '../countries';
import {
  AMOUNT_MESSAGES,
  EMAIL_PATTERN,
  IMAGE_MESSAGES,
  adminLoginSchema,
  amountFormSchema,
  noPassReason,
  chatMessageSchema,
  fieldMessages,
  imageFileProblem,
  joinFormSchema,
  mainDataSchema,
  postFieldsSchema,
  type FileFacts,
} from './forms';
import { ACCOUNT_ACCESS_MESSAGES, changePasswordSchema, passwordResetConfirmSchema } from './account-access';
import { isSafeLink } from './links';
import { maxClaimablePasses } from './passes';

// Every message below is copied from docs/product.md §5, character for character: a user sees these texts,
// and the web forms and the server's `fields` answer both come from these schemas.

/** The first message per field, as react-hook-form shows it and the API returns it. */
function messages(schema: z.ZodType, value: unknown): Record<string, string> {
  const result = schema.safeParse(value);
  return result.success ? {} : fieldMessages(result.error);
}

const repeat = (n: number, c = 'a') => c.repeat(n);
/** A syntactically valid e-mail of exactly `length` characters ending in `.com`. */
const emailOfLength = (length: number) => `${repeat(length - '@example.com'.length, 'u')}@example.com`;

const validJoin = { email: 'ann@example.com', password: 'pass1' };
const validPost = {
  fullname: 'Ann Smith',
  country: 'Spain',
  email: 'ann@example.com',
  link: 'https://example.com/ann',
  message: 'Hello all',
};
const validAdmin = { email: 'admin@example.com', password: 'secret-123' };

type Case = [label: string, value: string | undefined, message: string | undefined];

function fieldTable(
  schema: () => z.ZodType,
  valid: Record<string, unknown>,
  field: string,
  cases: Case[],
): void {
  it.each(cases)(`${field}: %s`, (_label, value, message) => {
    const got = messages(schema(), { ...valid, [field]: value });
    expect(got[field]).toBe(message);
  });
}

describe('Join form (docs/product.md §5)', () => {
  fieldTable(() => joinFormSchema, validJoin, 'email', [
    ['missing → required', undefined, 'Enter an email'],
    ['empty → required', '', 'Enter an email'],
    ['only spaces → required', '   ', 'Enter an email'],
    ['4 characters → min 5', 'a@b.', 'Please enter a valid email'],
    ['31 characters → max 30', emailOfLength(31), 'Invalid Email'],
    ['exactly 30 characters is allowed', emailOfLength(30), undefined],
    ['no @ → pattern', 'ann.example.com', 'Invalid Email'],
    ['ending not listed → pattern', 'ann@example.xyz', 'Invalid Email'],
    ['space inside → pattern', 'an n@example.com', 'Invalid Email'],
    ['5 characters passes min 5, then the pattern', 'a@b.c', 'Invalid Email'],
    ['shortest valid (6 characters)', 'a@b.io', undefined],
  ]);
  fieldTable(() => joinFormSchema, validJoin, 'password', [
    ['missing → required', undefined, 'Please enter your password'],
    ['empty → required', '', 'Please enter your password'],
    ['3 characters → min 4', 'abc', 'Enter a valid password'],
    ['9 characters → max 8', '123456789', 'Please do not exceed 8 characters'],
    ['4 characters', 'abcd', undefined],
    ['8 characters', '12345678', undefined],
  ]);

  it.each(['com', 'net', 'org', 'gov', 'edu', 'info', 'biz', 'co', 'io', 'uk'])('accepts e-mails ending in .%s', (ending) => {
    expect(EMAIL_PATTERN.test(`ann@example.${ending}`)).toBe(true);
    expect(messages(joinFormSchema, { ...validJoin, email: `ann@ex.${ending}` })).toEqual({});
  });

  it('accepts a valid join form and trims the e-mail', () => {
    const parsed = joinFormSchema.parse({ email: '  ann@example.co.uk ', password: 'pass1' });
    expect(parsed).toEqual({ email: 'ann@example.co.uk', password: 'pass1' });
  });
});

describe("The access forms' new password (docs/product.md §5: the join form's rule)", () => {
  const newPasswordCases: Case[] = [
    ['missing → required, naming the new password', undefined, ACCOUNT_ACCESS_MESSAGES.newPasswordRequired],
    ['empty → required, naming the new password', '', ACCOUNT_ACCESS_MESSAGES.newPasswordRequired],
    ['3 characters → min 4', 'abc', 'Enter a valid password'],
    ['9 characters → max 8', '123456789', 'Please do not exceed 8 characters'],
    ['4 characters', 'abcd', undefined],
  ];
  fieldTable(() => passwordResetConfirmSchema, { token: 't', password: 'pass1' }, 'password', newPasswordCases);
  fieldTable(() => changePasswordSchema, { currentPassword: 'old1', newPassword: 'pass1' }, 'newPassword', newPasswordCases);
});

describe('Post form (docs/product.md §5)', () => {
  const post = () => postFieldsSchema();
  fieldTable(post, validPost, 'fullname', [
    ['empty → required', '', 'Please enter your full name'],
    ['1 character → min 2', 'A', 'Enter a valid name'],
    ['21 characters → max 20', repeat(21), 'Please do not exceed 20 characters'],
    ['2 characters', 'Al', undefined],
    ['20 characters', repeat(20), undefined],
  ]);
  fieldTable(post, validPost, 'country', [
    ['empty → required', '', 'Please enter a country'],
    ['missing → required', undefined, 'Please enter a country'],
    ['a country', 'United States', undefined],
    // Only the list the form offers; the spec has one message for the field, the missing one's.
    ['a country off the list', 'Narnia', 'Please enter a country'],
    ['4,000 characters', repeat(4_000, 'N'), 'Please enter a country'],
    ['a listed name in other case', 'spain', 'Please enter a country'],
    ['a listed name with spaces around (trimmed, as every text field)', ' Spain ', undefined],
  ]);
  fieldTable(post, validPost, 'email', [
    ['empty → required', '', 'Please enter an email'],
    ['9 characters → min 10', 'a@bcd.com', 'Please enter a valid email'],
    ['51 characters → max 50', emailOfLength(51), 'Please enter an email less than 50 characters long'],
    ['50 characters', emailOfLength(50), undefined],
    ['ending not listed → pattern', 'ann@example.xyz', 'Email no válido'],
  ]);
  fieldTable(post, validPost, 'link', [
    ['empty → required', '', 'Enter your personal link'],
    ['9 characters → min 10', 'http://ab', 'Please enter a valid link'],
    ['601 characters → max 600', `https://${repeat(593)}`, 'Your link is too long, consider using a link shortener.'],
    ['600 characters', `https://${repeat(592)}`, undefined],
  ]);
  fieldTable(post, validPost, 'message', [
    ['empty → required', '', 'Please enter a message'],
    ['3 characters → min 4', 'abc', 'Enter at least 4 character'],
    ['101 characters → max 100', repeat(101), 'Do not exceed 100 characters'],
    ['4 characters', 'abcd', undefined],
    ['100 characters', repeat(100), undefined],
  ]);

  describe('with a registered e-mail', () => {
    const registered = () => postFieldsSchema({ registeredEmail: 'Ann@Example.com' });
    fieldTable(registered, validPost, 'email', [
      ['another e-mail → must match', 'bob@example.com', 'Your email must match the one registered'],
      ['the same e-mail in other case and with spaces', '  ANN@example.COM ', undefined],
      ['empty → still required first', '', 'Please enter an email'],
    ]);
  });

  it('accepts a valid post form', () => {
    expect(messages(postFieldsSchema({ registeredEmail: validPost.email }), validPost)).toEqual({});
  });

  it('reports every invalid field at once, each with its first message', () => {
    expect(messages(postFieldsSchema(), {})).toEqual({
      fullname: 'Please enter your full name',
      country: 'Please enter a country',
      email: 'Please enter an email',
      link: 'Enter your personal link',
      message: 'Please enter a message',
    });
  });
});

describe("the post form's countries (docs/product.md §2 /content/post)", () => {
  it('are about 190 distinct names, the default among them, none empty or padded', () => {
    expect(COUNTRIES.length).toBeGreaterThanOrEqual(180);
    expect(new Set(COUNTRIES).size).toBe(COUNTRIES.length);
    expect(COUNTRIES).toContain(DEFAULT_COUNTRY);
    for (const country of COUNTRIES) {
      expect(country).toBe(country.trim());
      expect(isListedCountry(country) && listedCountryOrNone(country) === country).toBe(true);
    }
    expect(Math.max(...COUNTRIES.map((country) => country.length))).toBeLessThanOrEqual(40);
    expect([isListedCountry('Narnia'), listedCountryOrNone('Narnia'), listedCountryOrNone('')]).toEqual([false, '', '']);
  });
});

describe('Post form image (docs/product.md §5)', () => {
  const MB2 = 2 * 1024 * 1024;
  const file = (name: string, type: string, size = 1_000): FileFacts => ({ name, type, size });
  const cases: [string, FileFacts | null | undefined, string | null][] = [
    ['no file → required', undefined, 'Please enter your image'],
    ['null → required', null, 'Please enter your image'],
    ['empty file input (nameless, 0 bytes) → must be chosen', file('', 'application/octet-stream', 0), 'Please select an image.'],
    ['a text file → must be an image', file('notes.txt', 'text/plain'), 'Please make sure you select an image.'],
    ['a video → must be an image', file('clip.mp4', 'video/mp4'), 'Please make sure you select an image.'],
    ['2 MB + 1 byte → too large', file('big.jpg', 'image/jpeg', MB2 + 1), 'Image must not exceed 2MB.'],
    ['exactly 2 MB', file('edge.jpg', 'image/jpeg', MB2), null],
    ['a PDF → refused', file('cv.pdf', 'application/pdf'), 'PDF files and executables are not allowed.'],
    ['a PDF declared as an image → refused by name', file('cv.pdf', 'image/png'), 'PDF files and executables are not allowed.'],
    ['an .exe → refused', file('setup.exe', 'application/x-msdownload'), 'PDF files and executables are not allowed.'],
    ['an .exe with an unknown type → refused', file('SETUP.EXE', ''), 'PDF files and executables are not allowed.'],
    ['a shell script declared as an image → refused', file('run.sh', 'image/png'), 'PDF files and executables are not allowed.'],
    ['a PNG', file('me.png', 'image/png'), null],
    ['a JPEG', file('me.jpeg', 'image/jpeg'), null],
    ['a WebP', file('me.webp', 'image/webp'), null],
  ];
  it.each(cases)('%s', (_label, input, message) => {
    expect(imageFileProblem(input)).toBe(message);
  });

  it('keeps the 2 MB limit and the messages in one place', () => {
    expect(LIMITS.imageMaxBytes).toBe(MB2);
    expect(Object.values(IMAGE_MESSAGES)).toEqual([
      'Please enter your image',
      'Please select an image.',
      'Please make sure you select an image.',
      'Image must not exceed 2MB.',
      'PDF files and executables are not allowed.',
    ]);
  });
});

describe('Chat message (docs/product.md §5)', () => {
  fieldTable(() => chatMessageSchema, {}, 'message', [
    ['empty → required', '', 'Please enter a message'],
    ['501 characters → too long', repeat(501), 'The message is too long'],
    ['500 characters', repeat(500), undefined],
    ['one character', 'a', undefined],
  ]);
});

describe('Amount form (docs/product.md §2 /content/amount, §5)', () => {
  it.each([
    // available, points, max
    [100, 45, 2],
    [100, 20, 1],
    [100, 19, 0],
    [3, 1_000, 3],
    [0, 1_000, 0],
    [-5, 1_000, 0],
  ])('available %i, points %i → at most %i passes', (available, points, max) => {
    expect(maxClaimablePasses(available, points)).toBe(max);
  });

  const passes = (available: number, points: number, value: unknown) => messages(amountFormSchema(available, points), { passes: value }).passes;

  it('accepts 1 up to the smaller of available and floor(points / 20)', () => {
    expect(passes(100, 45, 1)).toBeUndefined();
    expect(passes(100, 45, 2)).toBeUndefined();
    expect(passes(100, 45, '2')).toBeUndefined();
    expect(amountFormSchema(100, 45).parse({ passes: '2' })).toEqual({ passes: 2 });
    expect(passes(3, 1_000, 3)).toBeUndefined();
  });

  it('refuses more than the maximum, saying what the maximum is or why there is none', () => {
    expect(passes(100, 45, 3)).toBe('You can get at most 2 passes');
    expect(passes(3, 1_000, 4)).toBe('You can get at most 3 passes');
    expect(passes(100, 19, 1)).toBe(AMOUNT_MESSAGES.notEnoughPoints);
    expect(passes(0, 1_000, 1)).toBe(AMOUNT_MESSAGES.noneAvailable);
  });

  it('says why no pass can be had before anything is typed (the amount page shows it)', () => {
    expect(noPassReason(100, 10)).toBe(AMOUNT_MESSAGES.notEnoughPoints);
    expect(noPassReason(0, 1_000)).toBe(AMOUNT_MESSAGES.noneAvailable);
    expect(noPassReason(100, 20)).toBeNull();
  });

  it('requires a whole number of at least 1', () => {
    expect(passes(100, 45, 0)).toBe(AMOUNT_MESSAGES.min);
    expect(passes(100, 45, -1)).toBe(AMOUNT_MESSAGES.min);
    expect(passes(100, 45, 1.5)).toBe(AMOUNT_MESSAGES.whole);
    // An empty number input is "required", not "at least 1".
    expect(passes(100, 45, '')).toBe(AMOUNT_MESSAGES.required);
    expect(passes(100, 45, undefined)).toBe(AMOUNT_MESSAGES.required);
    expect(passes(100, 45, 'abc')).toBe(AMOUNT_MESSAGES.required);
  });
});

describe('Admin login (docs/product.md §5, Spanish)', () => {
  fieldTable(() => adminLoginSchema, validAdmin, 'email', [
    ['empty → required', '', 'Ingrese su email'],
    ['11 characters → min 12', 'ad@mini.com', 'Ingrese un email valido'],
    ['51 characters → max 50', emailOfLength(51), 'El email ingresado es demasiado largo. Ingrese un email valido'],
    ['12 characters', 'ad@minis.com', undefined],
    ['50 characters', emailOfLength(50), undefined],
  ]);
  fieldTable(() => adminLoginSchema, validAdmin, 'password', [
    ['empty → required', '', 'Ingrese su contraseña'],
    ['7 characters → min 8', '1234567', 'Ingrese una contraseña valida'],
    ['31 characters → max 30', repeat(31), 'La contraseña ingresada es demasiado larga'],
    ['8 characters', '12345678', undefined],
    ['30 characters', repeat(30), undefined],
  ]);

  it('accepts a valid admin login', () => {
    expect(messages(adminLoginSchema, validAdmin)).toEqual({});
  });
});

describe('links and start dates', () => {
  it('renders only http(s) links as links', () => {
    expect(isSafeLink('https://example.com')).toBe(true);
    expect(isSafeLink('http://example.com/x')).toBe(true);
    expect(isSafeLink('javascript:alert(1)')).toBe(false);
    expect(isSafeLink('example.com')).toBe(false);
  });
  it('takes a start date only when it is a real day, as the day counter reads it', () => {
    const startDate = (v: string) => mainDataSchema.safeParse({ available: 1, cpm: 1, donations: 0, startDate: v }).success;
    expect(startDate('')).toBe(true);
    expect(startDate('1/11/2026')).toBe(true);
    expect(startDate('29/02/2028')).toBe(true);
    expect(startDate('31/02/2026')).toBe(false);
    expect(startDate('2026-11-01')).toBe(false);
  });
});

describe('text every store can keep', () => {
  it('refuses NUL characters and unpaired surrogates in text fields (PostgreSQL refuses both)', async () => {
    const { chatMessageSchema, isStorableText, UNSUPPORTED_CHARACTERS } = await import('./forms');
    expect(isStorableText('hola 👩‍👩‍👧 مرحبا')).toBe(true);
    expect(isStorableText('a\u0000b')).toBe(false);
    expect(isStorableText('a\uD800b')).toBe(false);
    expect(isStorableText('a\uDC00')).toBe(false);
    expect(chatMessageSchema.safeParse({ message: 'hi\u0000' }).error?.issues[0]?.message).toBe(UNSUPPORTED_CHARACTERS);
  });
});
