import type { RedisConnection } from '../redis-admin';
import { TextMirror } from './text-mirror';

/** Keyspaces whose text index a reader keeps: the active one and the one before it (a switch). */
const KEPT = 2;

/** One reader's text mirrors, by keyspace prefix, oldest dropped first. */
export class TextMirrors {
  private readonly mirrors = new Map<string, TextMirror>();

  constructor(
    private readonly redis: RedisConnection,
    private readonly onError?: (error: unknown) => void,
  ) {}

  of(prefix: string): TextMirror {
    let mirror = this.mirrors.get(prefix);
    if (mirror) {
      this.mirrors.delete(prefix);
    } else {
      mirror = new TextMirror(this.redis, prefix, this.onError);
      for (const old of this.mirrors.keys()) if (this.mirrors.size >= KEPT) this.mirrors.delete(old);
    }
    this.mirrors.set(prefix, mirror);
    return mirror;
  }
}
