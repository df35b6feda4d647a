import { describe, expect, it } from 'vitest';
import { ProjectorProgress } from './progress';

describe('a projector\'s last error', () => {
  it('is shown without e-mail addresses, cleared by the next stored batch, and remembered as the last failure', () => {
    const progress = new ProjectorProgress();
    progress.failed(new Error('event 12 unreadable: email "ana.perez@example.com" is not allowed'));
    expect(progress.lastError).toBe('event 12 unreadable: email "<e-mail>" is not allowed');
    progress.stored({ commit: 2n, prepare: 1n }, 1);
    expect(progress.lastError).toBeNull();
    expect(progress.lastFailure?.message).toBe('event 12 unreadable: email "<e-mail>" is not allowed');
  });

  it('is cut short when long', () => {
    const progress = new ProjectorProgress();
    progress.failed(new Error('x'.repeat(5_000)));
    expect(progress.lastError!.length).toBeLessThanOrEqual(301);
  });
});
