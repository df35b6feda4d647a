import { useEffect, useMemo } from 'react';
import { PRODUCT_NAME } from '@pass/events/kernel';
import { formatDate, formatFunds, formatNumber } from '../../lib/format';
import { useNow, useTitle } from '../../lib/hooks';
import { useAppDispatch, useAppSelector } from '../../lib/store-hooks';
import { ProgressChart } from '../../components/ProgressChart';
import type { ProgressRow } from '../../lib/progress-series';
import { progressSeries, selectProgressFailed } from './selectors';
import { progressActions } from './slice';
import { T } from './texts';

const CHART_LABELS = { chart: T.chartLabel, passes: T.passesLine, pace: T.paceLine };

/** The figures day by day, newest first: the chart's accessible form. */
function ProgressTable({ rows }: { rows: readonly ProgressRow[] }) {
  const newestFirst = [...rows].reverse();
  return (
    // Wider than a phone: it scrolls inside this region, which the keyboard reaches.
    <div className="table-scroll" role="region" aria-label={T.tableLabel} tabIndex={0}>
      <table className="progress-table">
        <caption className="visually-hidden">{T.tableLabel}</caption>
        <thead>
          <tr>
            {T.columns.map((column) => <th key={column} scope="col">{column}</th>)}
          </tr>
        </thead>
        <tbody>
          {newestFirst.map((row) => (
            <tr key={row.date}>
              <th scope="row">{formatDate(row.date)}</th>
              <td>{formatNumber(row.passesTaken)}</td>
              <td>{row.pace === null ? '–' : formatNumber(row.pace)}</td>
              <td>{formatNumber(row.members)}</td>
              <td>${formatFunds(row.fundsRaised)}</td>
              <td>{formatNumber(row.freePoints)}</td>
              <td>{formatNumber(row.pointsBought)}</td>
              <td>{formatNumber(row.chatMessages)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** /content/progress (docs/product.md §2): passes taken per UTC day against the goal's pace, live. */
export default function ProgressPage() {
  useTitle(`${T.title} · ${PRODUCT_NAME}`);
  const dispatch = useAppDispatch();
  const now = useNow();
  const view = useAppSelector((state) => state.progress.view);
  const live = useAppSelector((state) => state.progress.live);
  const failed = useAppSelector(selectProgressFailed);
  const series = useMemo(() => (view ? progressSeries(view, live, now) : null), [view, live, now]);

  useEffect(() => {
    dispatch(progressActions.progressRequested());
  }, [dispatch]);

  return (
    <section className="panel wide" aria-labelledby="progress-title">
      <h1 id="progress-title">{T.title}</h1>
      <p className="hint">{T.intro}</p>
      {series ? (
        <>
          <p className="progress-summary">{series.summary}</p>
          <ProgressChart rows={series.rows} labels={CHART_LABELS} />
          <ProgressTable rows={series.rows} />
        </>
      ) : (
        <p role="status">{failed ? T.failed : T.loading}</p>
      )}
    </section>
  );
}
