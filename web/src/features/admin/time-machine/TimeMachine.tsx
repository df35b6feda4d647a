import { useEffect } from 'react';
import { useAppDispatch, useAppSelector } from '../../../lib/store-hooks';
import { selectMainData } from '../../../lib/state/site-selectors';
import { MomentPicker } from './MomentPicker';
import { ProgressToGoal } from './ProgressToGoal';
import { ReplayComparison } from './ReplayComparison';
import { ReplayList, replayName } from './ReplayList';
import { ReplayChat, ReplayCountries, ReplayFigures, ReplayRanking } from './ReplayView';
import { timeMachineActions as actions } from './replays-slice';

/** The shown replay: its figures, country top 5, ranking and chat as they were. */
function ShownReplay() {
  const dispatch = useAppDispatch();
  const { shownId, shown, ranking, replays } = useAppSelector((state) => state.timeMachine);
  const replay = replays.find((r) => r.id === shownId);
  if (!replay) return null;
  if (!shown) return replay.status === 'running' ? <p className="muted">Reconstruyendo {replayName(replay)}…</p> : null;
  return (
    <section aria-labelledby="shown-replay-title">
      <h3 id="shown-replay-title">Así estaba el {replayName(replay)}</h3>
      <ReplayFigures mainData={shown.mainData} at={replay.at} />
      <div className="admin-grid">
        <ReplayCountries countries={shown.countries} />
        <ReplayChat chat={shown.chat} />
      </div>
      <ReplayRanking ranking={ranking} onQuery={(q) => dispatch(actions.rankingQueried(q))} />
    </section>
  );
}

/** "Máquina del tiempo": the site as it was at a chosen moment, two moments compared, and the progress so far. */
export function TimeMachine() {
  const dispatch = useAppDispatch();
  const { replays, creating, error, shownId, comparison } = useAppSelector((state) => state.timeMachine);
  const { startDate } = useAppSelector(selectMainData);

  // The saga polls only while the section is on screen.
  useEffect(() => {
    dispatch(actions.entered());
    return () => void dispatch(actions.left());
  }, [dispatch]);

  return (
    <section className="card time-machine" aria-labelledby="time-machine-title">
      <h2 id="time-machine-title">Máquina del tiempo</h2>
      <MomentPicker startDate={startDate} creating={creating} onPick={(choice) => dispatch(actions.replayRequested(choice))} />
      {error && <p className="error" role="alert">{error}</p>}
      <ReplayList replays={replays} shownId={shownId}
        onShow={(id) => dispatch(actions.replayShown(id))}
        onDelete={(id) => dispatch(actions.deleteRequested(id))}
        onWatch={(id) => dispatch(actions.watchRequested(id))} />
      <ShownReplay />
      <h3>Comparar dos momentos</h3>
      <ReplayComparison replays={replays.filter((r) => r.status === 'ready')} comparison={comparison}
        onCompare={(pair) => dispatch(actions.comparisonRequested(pair))} />
      <ProgressToGoal />
    </section>
  );
}
