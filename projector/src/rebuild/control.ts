import type { ProjectionStatus } from '@pass/events';

/** What the admin views need from the projections: where they are, and a rebuild on request. */
export interface ProjectionControl {
  status(): Promise<ProjectionStatus>;
  /** Starts a rebuild (or reports the one already running). */
  rebuild(): Promise<ProjectionStatus>;
}
