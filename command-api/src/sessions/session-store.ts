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
}

export interface SessionStore {
  readonly kind: string;
  create(record: SessionRecord): Promise<void>;
  /** Null when unknown or revoked. Expiry is checked by the caller against its clock. */
  get(id: string): Promise<SessionRecord | null>;
  revoke(id: string): Promise<void>;
  close(): Promise<void>;
}

export const isLive = (record: SessionRecord | null | undefined, now = Date.now()): record is SessionRecord =>
  !!record && Date.parse(record.expiresAt) > now;

export class MemorySessionStore implements SessionStore {
  readonly kind: string = 'memory';
  protected readonly sessions = new Map<string, SessionRecord>();

  async create(record: SessionRecord): Promise<void> {
    this.sessions.set(record.id, record);
    // Expired sessions are dropped now and then, so a long-running process stays small.
    if (this.sessions.size % 1024 === 0) {
      const now = Date.now();
      for (const [id, r] of this.sessions) if (!isLive(r, now)) this.sessions.delete(id);
    }
  }

  async get(id: string): Promise<SessionRecord | null> {
    return this.sessions.get(id) ?? null;
  }

  async revoke(id: string): Promise<void> {
    this.sessions.delete(id);
  }

  async close(): Promise<void> {}
}
