import { useMemo } from 'react';
import type { ProgressView } from '@pass/events/kernel';
import { ProgressChart } from '../../../components/ProgressChart';
import { formatNumber } from '../../../lib/format';
import { useNow } from '../../../lib/hooks';
import { goalShare, progressRows, type ProgressToday } from '../../../lib/progress-series';
import { useAppSelector } from '../../../lib/store-hooks';
import { PROGRESS_TEXTS as T } from './texts';

/** Today's reading: the day counter, the passes taken, the share of the goal, what the pace needs by tonight. */
function progressFacts({ day, goal, passesTaken, paceToday }: ProgressToday): [string, string][] {
  const share = goalShare(passesTaken, goal.passes);
  const percent = share.under ? T.under : `${share.percent}%`;
  return [
    [T.day, paceToday === null ? T.noStartDate : T.dayOf(formatNumber(day), formatNumber(goal.days))],
    [T.taken, T.takenOf(formatNumber(passesTaken), formatNumber(goal.passes))],
    [T.share, percent],
    [T.paceToday, paceToday === null ? '—' : formatNumber(paceToday)],
  ];
}

function ProgressFigures({ view }: { view: ProgressView }) {
  const now = useNow();
  const { rows, today } = useMemo(() => progressRows(view, [], now), [view, now]);
  return (
    <>
      <dl className="stats small" aria-label={T.figures}>
        {progressFacts(today).map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <ProgressChart rows={rows} labels={T.chart} />
    </>
  );
}

/** "Progreso hacia la meta": the passes taken per UTC day against the goal's pace, as /content/progress draws it. */
export function ProgressToGoal() {
  const { view, failed } = useAppSelector((state) => state.timeMachine.progress);
  return (
    <section aria-labelledby="progress-to-goal-title">
      <h3 id="progress-to-goal-title">{T.title}</h3>
      {view ? <ProgressFigures view={view} /> : <p role="status">{failed ? T.failed : T.loading}</p>}
    </section>
  );
}
