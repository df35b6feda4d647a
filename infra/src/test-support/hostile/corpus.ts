/**
 * The hostile-input corpus: values an attacker (or a broken client) puts in place of each field,
 * and whole bodies that are not what a route reads. Generated per route by the suite.
 */

/** Nested `depth` times: `{"a":{"a":…}}`. */
export function deepObject(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

export const XSS_NAME = '<svg onload=alert()>'; // 20 characters: the longest full name allowed
export const XSS_TEXT = '<img src=x onerror=alert(1)>';

/** Text a member may legitimately send: stored as written, rendered as text. */
export const ODD_BUT_VALID_TEXT: Record<string, string> = {
  'script tag': '<script>alert(1)</script>',
  'img onerror': XSS_TEXT,
  'RTL override': '\u202Egnp.exe\u202C hello',
  'Arabic (RTL)': 'مرحبا بالعالم',
  'Hebrew (RTL)': 'שלום עולם',
  'emoji and ZWJ': '👩‍👩‍👧‍👦 🏳️‍🌈 ok',
  'combining marks': 'Z̸̢̛a̵l̷g̶o̸ text',
  'SQL injection': "'; DROP TABLE events; --",
  'template injection': '{{7*7}} ${7*7} <%= 7*7 %>',
  'path traversal': '../../../../etc/passwd',
  'format string': '%s%s%s%n%x',
  'CRLF injection': 'line\r\nSet-Cookie: pwned=1',
};

/** Values of the wrong type or out of any sane range, for every field. */
export const WRONG_TYPES: Record<string, unknown> = {
  number: 12345,
  negative: -1,
  float: 1.5,
  'huge number': 1e308,
  boolean: true,
  null: null,
  'empty array': [],
  'array of strings': ['a', 'b'],
  'empty object': {},
  'mongo operator': { $gt: '' },
  'deep object (2,000 levels)': deepObject(2_000),
  'empty string': '',
  'only spaces': '   ',
  'NUL bytes': 'a\u0000b\u0000',
  'lone surrogate': 'a\uD800b',
  'very long string (60 kB)': 'x'.repeat(60_000),
};

/** Whole request bodies that are not the route's JSON object. */
export const BAD_BODIES: Record<string, { raw: string | Uint8Array; contentType?: string }> = {
  'empty body': { raw: '' },
  'JSON null': { raw: 'null' },
  'JSON array': { raw: '[1,2,3]' },
  'JSON string': { raw: '"hello"' },
  'JSON number': { raw: '42' },
  'truncated JSON': { raw: '{"email": "a@b.com", ' },
  'invalid JSON': { raw: "{email: 'x'}" },
  'invalid UTF-8': { raw: new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x22, 0x7d]) },
  'deep JSON (30,000 nested arrays)': { raw: '['.repeat(30_000) + ']'.repeat(30_000) },
  'huge body (2 MB)': { raw: JSON.stringify({ message: 'x'.repeat(2 * 1024 * 1024) }) },
  'prototype pollution': { raw: '{"__proto__":{"admin":true,"status":200},"constructor":{"prototype":{"admin":true}}}' },
  'form-encoded': { raw: 'email=a%40b.com&password=1234', contentType: 'application/x-www-form-urlencoded' },
  'text/plain JSON': { raw: '{"message":"hello"}', contentType: 'text/plain' },
  'JSON with BOM': { raw: '\uFEFF{"a":1}' },
};

/** E-mail addresses at and around the join form's rules (docs/product.md §5: 5–30 characters, listed endings). */
export const EMAIL_EDGE_CASES: string[] = [
  'a@b.co',
  'UPPER.Case@Example.COM',
  'first+tag@example.org',
  '"quoted"@example.com',
  'üñîçødé@example.io',
  '<script>@x.com',
  'user@localhost',
  'user@example.xyz',
  'user@exa mple.com',
  'user@@example.com',
  '@example.com',
  'user@',
  'a@b.c',
  `${'a'.repeat(25)}@x.com`,
  '  padded@example.net  ',
  'new\nline@example.com',
  'user@example.com\u0000',
  'user@example.com; DROP TABLE users',
];

export const PASSWORD_EDGE_CASES: string[] = ['abc', '123456789', 'pässwörd', '🔑🔑🔑🔑', '    ', 'a\u0000bcd'];

export const PDF_BYTES = Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n');
export const ELF_BYTES = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00]), Buffer.alloc(120, 0)]);
export const WINDOWS_EXE = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(200, 0x90)]);
export const SVG_WITH_SCRIPT = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>');
export const HTML_AS_IMAGE = Buffer.from('<html><body><script>alert(1)</script></body></html>');
/** A real PNG followed by padding up to 2 MB + 1 byte. */
export function oversized(png: Buffer): Buffer {
  return Buffer.concat([png, Buffer.alloc(2 * 1024 * 1024 + 1 - png.length, 0)]);
}
