import { expect } from 'vitest';
import type { DomainEvent } from '@pass/events';
import { fold, type Decider } from './decider';
import { DomainError, type DomainErrorCode } from '@pass/events';

/**
 * Given/when/then for deciders (Emmett style), no I/O:
 *   spec.given([...events]).when(command).then([...events]) / .thenThrows('code', /message/)
 */
export function deciderSpec<C extends { type: string; now: Date }, S, E extends DomainEvent>(decider: Decider<C, S, E>) {
  return {
    given(events: readonly E[]) {
      return {
        when(command: C) {
          const run = () => decider.decide(command, fold(decider, events));
          return {
            then(expected: readonly E[]) {
              expect(run()).toEqual(expected);
            },
            thenThrows(code: DomainErrorCode, message?: RegExp) {
              let caught: unknown;
              try {
                run();
              } catch (error) {
                caught = error;
              }
              expect(caught, 'the command should be refused').toBeInstanceOf(DomainError);
              expect((caught as DomainError).code).toBe(code);
              if (message) expect((caught as DomainError).message).toMatch(message);
              return caught as DomainError;
            },
            /** The state after the decided events, for assertions on what a reader would see. */
            thenState(check: (state: S) => void) {
              const before = fold(decider, events);
              check(fold(decider, decider.decide(command, before), before));
            },
          };
        },
      };
    },
  };
}
