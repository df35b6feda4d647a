import { z } from 'zod';
import { LIMITS } from '../constants';
import { isListedCountry } from '../countries';
import { normalizeEmail } from './members';
import { maxClaimablePasses } from './passes';
import { DAY_MONTH_YEAR, parseDayMonthYear } from './site';

/**
 * The form rules of docs/product.md §5 with their exact messages, shared by the server and the web forms.
 * Browser-safe: no Node imports. Rules run in the order written, so the first message of a field
 * is the one the spec lists first (react-hook-form shows the first issue).
 */

const EMAIL_ENDINGS = ['com', 'net', 'org', 'gov', 'edu', 'info', 'biz', 'co', 'io', 'uk'];
export const EMAIL_PATTERN = new RegExp(`^[^\\s@]+@[^\\s@]+\\.(?:${EMAIL_ENDINGS.join('|')})$`, 'i');

export const UNSUPPORTED_CHARACTERS = 'Please remove the unsupported characters';

/**
 * Text every store can keep: no NUL character and no unpaired surrogate (PostgreSQL's text and
 * JSON refuse both, so they would fail the append instead of the form).
 */
export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(value);
}

/** A string field whose empty value reports `required`. */
const text = (required: string) => z.string({ error: required }).trim().min(1, required).refine(isStorableText, UNSUPPORTED_CHARACTERS);

/**
 * The join form's password rule (required, 4 to 8 characters); `required` names the field, so the
 * access forms' new password says so (docs/product.md §5).
 */
export const passwordRule = (required: string) =>
  z.string({ error: required }).min(1, required).min(4, 'Enter a valid password').max(8, 'Please do not exceed 8 characters');

export const joinFormSchema = z.object({
  email: text('Enter an email')
    .min(5, 'Please enter a valid email')
    .max(30, 'Invalid Email')
    .regex(EMAIL_PATTERN, 'Invalid Email'),
  password: passwordRule('Please enter your password'),
});
export type JoinForm = z.infer<typeof joinFormSchema>;

export const IMAGE_MESSAGES = {
  required: 'Please enter your image',
  notChosen: 'Please select an image.',
  notImage: 'Please make sure you select an image.',
  tooLarge: 'Image must not exceed 2MB.',
  forbidden: 'PDF files and executables are not allowed.',
} as const;

const FORBIDDEN_EXTENSIONS = /\.(pdf|exe|msi|bat|cmd|com|sh|bin|dll|so|dmg|app|apk|jar|js|ps1|elf)$/i;
const FORBIDDEN_TYPES = /^(application\/(pdf|x-msdownload|x-executable|x-elf|x-sh|x-msdos-program|java-archive|x-mach-binary|octet-stream))$/i;

export interface FileFacts {
  name: string;
  /** MIME type as declared by the browser or the upload. */
  type: string;
  size: number;
}

/**
 * The spec's image rules on what a browser or an upload declares. The server also checks content.
 * No file at all is the `required` case; an empty, nameless file is what a form sends for a file
 * input left empty (multipart part with `filename=""`), the "must be chosen" case.
 */
export function imageFileProblem(file: FileFacts | null | undefined): string | null {
  if (!file) return IMAGE_MESSAGES.required;
  if (file.name === '' && file.size === 0) return IMAGE_MESSAGES.notChosen;
  if (FORBIDDEN_EXTENSIONS.test(file.name) || FORBIDDEN_TYPES.test(file.type)) return IMAGE_MESSAGES.forbidden;
  if (!file.type.startsWith('image/')) return IMAGE_MESSAGES.notImage;
  if (file.size > LIMITS.imageMaxBytes) return IMAGE_MESSAGES.tooLarge;
  return null;
}

const postTextFields = {
  fullname: text('Please enter your full name')
    .min(2, 'Enter a valid name')
    .max(20, 'Please do not exceed 20 characters'),
  // The form offers only the list; any other value is as good as none, with the spec's message.
  country: text('Please enter a country').refine(isListedCountry, 'Please enter a country'),
  link: text('Enter your personal link')
    .min(10, 'Please enter a valid link')
    .max(600, 'Your link is too long, consider using a link shortener.'),
  message: text('Please enter a message')
    .min(4, 'Enter at least 4 character')
    .max(100, 'Do not exceed 100 characters'),
};

function postEmail(registeredEmail: string | undefined) {
  return text('Please enter an email')
    .min(10, 'Please enter a valid email')
    .max(50, 'Please enter an email less than 50 characters long')
    .refine(
      (v) => !registeredEmail || normalizeEmail(v) === normalizeEmail(registeredEmail),
      'Your email must match the one registered',
    )
    .regex(EMAIL_PATTERN, 'Email no válido');
}

/** The post (certificate) form's text fields; the server validates the multipart body with this. */
export function postFieldsSchema(options: { registeredEmail?: string } = {}) {
  return z.object({ ...postTextFields, email: postEmail(options.registeredEmail) });
}
export type PostFields = z.infer<ReturnType<typeof postFieldsSchema>>;

export const CHAT_MESSAGES = { required: 'Please enter a message', tooLong: 'The message is too long' } as const;

export const chatMessageSchema = z.object({
  message: text(CHAT_MESSAGES.required).max(LIMITS.chatMessageMaxChars, CHAT_MESSAGES.tooLong),
});

export const AMOUNT_MESSAGES = {
  required: 'Please enter how many passes you want',
  whole: 'Please enter a whole number of passes',
  min: 'Please choose at least 1 pass',
  noneAvailable: 'There are no passes available right now',
  notEnoughPoints: 'You do not have enough points for a pass',
  max: (max: number) => `You can get at most ${max} passes`,
} as const;

/** Why no pass can be claimed now (no supply, or under a pass's worth of points), or null when one can. */
export function noPassReason(available: number, points: number): string | null {
  if (maxClaimablePasses(available, points) > 0) return null;
  return available <= 0 ? AMOUNT_MESSAGES.noneAvailable : AMOUNT_MESSAGES.notEnoughPoints;
}

export function amountFormSchema(available: number, points: number) {
  const max = maxClaimablePasses(available, points);
  const tooMany = noPassReason(available, points) ?? AMOUNT_MESSAGES.max(max);
  return z.object({
    // An empty number input arrives as '' (or null); coercing it would give 0 and the "min"
    // message, so it is treated as missing to show the "required" one.
    passes: z.preprocess(
      (v) => (v === '' || v === null ? undefined : v),
      z.coerce.number({ error: AMOUNT_MESSAGES.required }).int(AMOUNT_MESSAGES.whole).min(1, AMOUNT_MESSAGES.min).max(max, tooMany),
    ),
  });
}

export const adminLoginSchema = z.object({
  email: text('Ingrese su email')
    .min(12, 'Ingrese un email valido')
    .max(50, 'El email ingresado es demasiado largo. Ingrese un email valido'),
  password: z
    .string({ error: 'Ingrese su contraseña' })
    .min(1, 'Ingrese su contraseña')
    .min(8, 'Ingrese una contraseña valida')
    .max(30, 'La contraseña ingresada es demasiado larga'),
});


/** The main-data form's own messages (admin dashboard, Spanish). */
export const MAIN_DATA_MESSAGES = {
  availableNegative: 'Los pases disponibles no pueden ser negativos',
  cpmNegative: 'El CPM no puede ser negativo',
  donationsNegative: 'Las donaciones no pueden ser negativas',
  dateFormat: 'La fecha debe tener el formato dd/mm/aaaa',
  dateMissing: 'La fecha no existe',
} as const;

/** A money or count field of the main data; `negative` is its own sentence, agreeing in gender and number. */
const amount = (label: string, negative: string) =>
  z.coerce.number({ error: `Ingrese ${label}` }).refine(Number.isFinite, `Ingrese ${label}`).min(0, negative);

/** The admin dashboard's main-data form (Spanish UI). */
export const mainDataSchema = z.object({
  available: amount('los pases disponibles', MAIN_DATA_MESSAGES.availableNegative).pipe(z.number().int('Los pases disponibles deben ser un número entero')),
  cpm: amount('el CPM', MAIN_DATA_MESSAGES.cpmNegative),
  donations: amount('las donaciones', MAIN_DATA_MESSAGES.donationsNegative),
  startDate: z
    .string()
    .trim()
    // day/month/year, as the spec stores startDate, and a real day (the day counter reads it the
    // same way); empty means "not started".
    .refine((v) => v === '' || DAY_MONTH_YEAR.test(v), MAIN_DATA_MESSAGES.dateFormat)
    // The right shape naming no real day (31/02/2026) is told apart from a wrong shape.
    .refine((v) => v === '' || !DAY_MONTH_YEAR.test(v) || parseDayMonthYear(v) !== null, MAIN_DATA_MESSAGES.dateMissing),
});
export type MainDataForm = z.infer<typeof mainDataSchema>;

export const adViewsSchema = z.object({
  views: z.coerce
    .number({ error: 'Ingrese las vistas' })
    .int('Las vistas deben ser un número entero')
    .min(0, 'Las vistas no pueden ser negativas'),
});

/** First field message per path, the `fields` of an API error body. */
export function fieldMessages(error: z.ZodError): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = issue.path.join('.') || '_';
    if (!(key in out)) out[key] = issue.message;
  }
  return out;
}
