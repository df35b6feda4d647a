/**
 * The value of a series in a Prometheus text (a process's /metrics): its first sample, whatever
 * its labels; NaN when the text has none.
 */
export function metricValue(text: string, name: string): number {
  const match = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) : Number.NaN;
}
