import { Navigate } from 'react-router-dom';
import type { JoinReason, JoinRedirectState } from '../lib/joinReason';

/** A member-only page's guard: guests go to /content/join, which says why (lib/joinReason.ts). */
export function JoinRedirect({ reason }: { reason: JoinReason }) {
  const state: JoinRedirectState = { joinReason: reason };
  return <Navigate to="/content/join" replace state={state} />;
}
