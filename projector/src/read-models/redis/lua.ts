import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { RedisConnection } from '../redis-admin';

/** A Lua script as Redis runs it, and the SHA1 that EVALSHA names it by. */
export interface LuaScript {
  readonly text: string;
  readonly sha: string;
}

/**
 * Reads a script kept beside the code that runs it (`new URL('./x.lua', import.meta.url)`), once,
 * when that module loads. `{{NAME}}` in the file is replaced by `constants[NAME]`: a key name the
 * TypeScript side owns is written into the script, not repeated in it. A placeholder left without
 * a value, or a value no placeholder asks for, is a mistake and throws at load.
 */
export function loadLua(url: URL, constants: Readonly<Record<string, string>> = {}): LuaScript {
  const unused = new Set(Object.keys(constants));
  const text = readFileSync(url, 'utf8').replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const value = constants[name];
    if (value === undefined) throw new Error(`${url.pathname}: no value for {{${name}}}`);
    unused.delete(name);
    return value;
  });
  if (unused.size > 0) throw new Error(`${url.pathname}: no {{${[...unused].join('}}, {{')}}} to replace`);
  return { text, sha: createHash('sha1').update(text).digest('hex') };
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

/** Runs a script by its SHA1, sending its text only when this Redis does not hold it yet. */
export async function runLua(redis: RedisConnection, script: LuaScript, numKeys: number, args: Array<string | number>): Promise<unknown> {
  try {
    // One array, not spread: a rebuild's large batches pass more arguments than a call's stack holds.
    return await redis.call('EVALSHA', [script.sha, numKeys, ...args]);
  } catch (error) {
    if (!isNoScript(error)) throw error;
    return await redis.call('EVAL', [script.text, numKeys, ...args]);
  }
}
