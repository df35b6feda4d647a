import { Navigate } from 'react-router-dom';
import { contentPath } from '@pass/events/kernel';
import type { JoinReason, JoinRedirectState } from '../lib/join-reason';

/** A member-only page's guard: guests go to /content/join, which says why (lib/join-reason.ts). */
export function JoinRedirect({ reason }: { reason: JoinReason }) {
  const state: JoinRedirectState = { joinReason: reason };
  return <Navigate to={contentPath('join')} replace state={state} />;
}
