/** Shown on /content/check to a member with no points left (chat sends members out of points here, docs/product.md §6). */
export const OUT_OF_POINTS =
  'You have no points left: every chat message costs 1 point. Stay until this countdown ends to earn a free point, or buy points.';
