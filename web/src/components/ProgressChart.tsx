import { useEffect, useRef } from 'react';
import type uPlot from 'uplot';
import { formatNumber } from '../lib/format';
import type { ProgressRow } from '../lib/progress-series';

/** The chart's words, in the language of the page that shows it. */
export interface ProgressChartLabels {
  /** The drawing's accessible name: what it shows, and where the same figures are in words. */
  chart: string;
  passes: string;
  pace: string;
}

const HEIGHT = 260;
const PASSES_COLOR = '#14213d';
const PACE_COLOR = '#b54708';
const DAY_S = 86_400;
/** The date axis ticks whole days only: every day, 2, a week, 2 weeks, a month or a quarter apart. */
const DAY_STEPS = [1, 2, 7, 14, 30, 91].map((days) => days * DAY_S);
const pad = (n: number) => String(n).padStart(2, '0');
/** dd/mm, as the site writes dates (the table has the year). */
const dayMonth = (_: uPlot, splits: number[]) =>
  splits.map((s) => {
    const d = new Date(s * 1000);
    return `${pad(d.getUTCDate())}/${pad(d.getUTCMonth() + 1)}`;
  });

/** uPlot's columns: the days (UTC midnight, in seconds), the passes taken, the pace. */
function chartData(rows: readonly ProgressRow[]): uPlot.AlignedData {
  return [
    rows.map((row) => Date.parse(`${row.date}T00:00:00.000Z`) / 1000),
    rows.map((row) => row.passesTaken),
    rows.map((row) => row.pace),
  ];
}

/**
 * Draws the rows over at least a week: uPlot's own range for a single day (the site's first) runs
 * years ahead, and a few days stretched over the whole width read badly.
 */
function draw(chart: uPlot, rows: readonly ProgressRow[]): void {
  const data = chartData(rows);
  chart.setData(data);
  const days = data[0];
  if (days.length === 0) return;
  chart.setScale('x', { min: days[0]!, max: Math.max(days[days.length - 1]!, days[0]! + 7 * DAY_S) });
}

function chartOptions(uplot: typeof uPlot, width: number, labels: ProgressChartLabels): uPlot.Options {
  const count = (_: uPlot, splits: number[]) => splits.map((n) => formatNumber(n));
  return {
    width,
    height: HEIGHT,
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    // The days are UTC days, whatever the visitor's time zone.
    tzDate: (ts) => uplot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
    scales: { y: { range: (_u, _min, max) => [0, Math.max(10, Math.ceil(max * 1.1))] } },
    axes: [{ incrs: DAY_STEPS, values: dayMonth }, { values: count, size: 64 }],
    series: [
      {},
      { label: labels.passes, stroke: PASSES_COLOR, width: 2, fill: 'rgba(20, 33, 61, 0.08)' },
      { label: labels.pace, stroke: PACE_COLOR, width: 2, dash: [6, 4] },
    ],
  };
}

/**
 * The passes taken per day against the goal's pace, drawn by uPlot, which loads with this chart
 * only (a chunk of its own, not the start-up bundle). A picture for the eye: the page showing it
 * gives the figures in words, so the drawing is one labelled image.
 */
export function ProgressChart({ rows, labels }: { rows: readonly ProgressRow[]; labels: ProgressChartLabels }) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | null>(null);
  const latest = useRef({ rows, labels });
  latest.current = { rows, labels };

  useEffect(() => {
    let gone = false;
    let resize: ResizeObserver | undefined;
    void Promise.all([import('uplot'), import('uplot/dist/uPlot.min.css')]).then(([{ default: uplot }]) => {
      const target = box.current;
      if (gone || !target) return;
      const { rows: first, labels: words } = latest.current;
      chart.current = new uplot(chartOptions(uplot, target.clientWidth, words), chartData(first), target);
      draw(chart.current, first);
      resize = new ResizeObserver(() => chart.current?.setSize({ width: target.clientWidth, height: HEIGHT }));
      resize.observe(target);
      // A chunk that failed to load (a network blip) leaves the space empty: the page's words say it all.
    }, () => undefined);
    return () => {
      gone = true;
      resize?.disconnect();
      chart.current?.destroy();
      chart.current = null;
    };
  }, []);

  useEffect(() => {
    if (chart.current) draw(chart.current, rows);
  }, [rows]);

  return (
    <div className="progress-chart" role="img" aria-label={labels.chart}>
      <div className="progress-legend">
        <span className="passes">{labels.passes}</span> <span className="pace">{labels.pace}</span>
      </div>
      <div ref={box} className="progress-chart-plot" />
    </div>
  );
}
