/**
 * Where sessions live. The cookie only carries a signed random id; the record says whose it is
 * and until when, so logout (revoke) takes effect everywhere at once.
 * Adapters: file (standalone: survives restarts), Redis (distributed: shared by every process),
 * memory (in-memory mode for tests and benches, where nothing else survives a restart either).
 */
export interface SessionRecord {
  id: string;
  kind: 'user' | 'admin';
  /** userId or adminId. */
  subjectId: string;
  createdAt: string;
  expiresAt: string;
  /** When the session last verified a request, to `LAST_SEEN_GRANULARITY_MS` (absent: not since it was created). */
  lastSeenAt?: string;
}

/** A session's last-seen time is written at most this often (a write per request would cost every request). */
export const LAST_SEEN_GRANULARITY_MS = 5 * 60_000;

export interface SessionStore {
  readonly kind: string;
  create(record: SessionRecord): Promise<void>;
  /** Null when unknown or revoked. Expiry is checked by the caller against its clock. */
  get(id: string): Promise<SessionRecord | null>;
  revoke(id: string): Promise<void>;
  /** The sessions of one member (or admin), expired ones possibly included (the caller checks). */
  listOf(kind: SessionRecord['kind'], subjectId: string): Promise<SessionRecord[]>;
  /** Ends every session of one member (or admin) but `except`; the ids ended. */
  revokeAllOf(kind: SessionRecord['kind'], subjectId: string, except?: string): Promise<string[]>;
  /** Records that the session was used at `at` (kept only if the session still exists). */
  touch(id: string, at: string): Promise<void>;
  close(): Promise<void>;
}

export const isLive = (record: SessionRecord | null | undefined, now = Date.now()): record is SessionRecord =>
  !!record && Date.parse(record.expiresAt) > now;

const subjectKey = (kind: SessionRecord['kind'], subjectId: string) => `${kind}:${subjectId}`;

export class MemorySessionStore implements SessionStore {
  readonly kind: string = 'memory';
  protected readonly sessions = new Map<string, SessionRecord>();
  /** Session ids per member (or admin): `<kind>:<subjectId>` → ids. */
  private readonly bySubject = new Map<string, Set<string>>();

  async create(record: SessionRecord): Promise<void> {
    this.remember(record);
    // Expired sessions are dropped now and then, so a long-running process stays small.
    if (this.sessions.size % 1024 === 0) {
      const now = Date.now();
      for (const [id, record] of this.sessions) if (!isLive(record, now)) this.forget(id);
    }
  }

  async get(id: string): Promise<SessionRecord | null> {
    return this.sessions.get(id) ?? null;
  }

  async revoke(id: string): Promise<void> {
    this.forget(id);
  }

  async listOf(kind: SessionRecord['kind'], subjectId: string): Promise<SessionRecord[]> {
    const ids = this.bySubject.get(subjectKey(kind, subjectId)) ?? new Set<string>();
    return [...ids].flatMap((id) => this.sessions.get(id) ?? []);
  }

  async revokeAllOf(kind: SessionRecord['kind'], subjectId: string, except?: string): Promise<string[]> {
    const ids = [...(this.bySubject.get(subjectKey(kind, subjectId)) ?? [])].filter((id) => id !== except);
    for (const id of ids) await this.revoke(id);
    return ids;
  }

  async touch(id: string, at: string): Promise<void> {
    const record = this.sessions.get(id);
    if (record) this.sessions.set(id, { ...record, lastSeenAt: at });
  }

  async close(): Promise<void> {}

  /** Keeps a record and indexes it under its member. */
  protected remember(record: SessionRecord): void {
    this.sessions.set(record.id, record);
    const key = subjectKey(record.kind, record.subjectId);
    let ids = this.bySubject.get(key);
    if (!ids) this.bySubject.set(key, (ids = new Set()));
    ids.add(record.id);
  }

  /** Drops a record and its place in its member's index. */
  protected forget(id: string): void {
    const record = this.sessions.get(id);
    if (!record) return;
    this.sessions.delete(id);
    const key = subjectKey(record.kind, record.subjectId);
    const ids = this.bySubject.get(key);
    ids?.delete(id);
    if (ids?.size === 0) this.bySubject.delete(key);
  }
}
