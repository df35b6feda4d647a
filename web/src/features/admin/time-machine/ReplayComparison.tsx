import { useState, type FormEvent } from 'react';
import type { ReplayDiff, ReplayDiffSide, ReplayFigure, ReplayMover, ReplayStatus } from '@pass/events/kernel';
import { Field } from '../../../components/Field';
import { formatFunds, formatNumber } from '../../../lib/format';
import { replayName } from './ReplayList';
import type { TimeMachineState } from './replays-slice';

/** The live state, which either side of a comparison may be (the diff route's `now`). */
export const NOW = 'now';

const signed = (n: number, format: (n: number) => string) => (n > 0 ? `+${format(n)}` : format(n));
const dollars = (n: number) => (n < 0 ? `-$${formatFunds(-n)}` : `$${formatFunds(n)}`);
const sideName = (side: ReplayDiffSide) => (side.id === NOW ? 'Ahora' : replayName(side));

function Change({ label, figure, format = formatNumber }: { label: string; figure: ReplayFigure; format?: (n: number) => string }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{format(figure.then)} → {format(figure.now)} ({signed(figure.moved, format)})</dd>
    </>
  );
}

/** Joined or left members: how many, and the first few by name. */
function Members({ label, count, sample }: { label: string; count: number; sample: ReplayMover[] }) {
  const more = count - sample.length;
  return (
    <>
      <dt>{label}</dt>
      <dd>
        {formatNumber(count)}
        {sample.length > 0 && `: ${sample.map((m) => m.name).join(', ')}${more > 0 ? ` y ${formatNumber(more)} más` : ''}`}
      </dd>
    </>
  );
}

const rank = (n: number | null) => (n === null ? '—' : formatNumber(n));

function Movers({ movers, among }: { movers: ReplayMover[]; among: number }) {
  if (movers.length === 0) return <p className="muted">Nadie cambió de puesto entre los {formatNumber(among)} primeros.</p>;
  return (
    <div className="table-scroll">
      <table className="registry" aria-label="Los que más se movieron en la clasificación">
        <caption>Los que más se movieron entre los {formatNumber(among)} primeros de cada momento</caption>
        <thead>
          <tr>
            <th scope="col">Nombre</th>
            <th scope="col">Puesto antes</th>
            <th scope="col">Puesto después</th>
            <th scope="col">Pases antes</th>
            <th scope="col">Pases después</th>
          </tr>
        </thead>
        <tbody>
          {movers.map((m) => (
            <tr key={m.userId}>
              <td>{m.name}</td>
              <td>{rank(m.rankThen)}</td>
              <td>{rank(m.rankNow)}</td>
              <td>{formatNumber(m.passesThen)}</td>
              <td>{formatNumber(m.passesNow)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** What changed between the two moments, and the ranking's biggest movers. */
export function DiffView({ diff }: { diff: ReplayDiff }) {
  return (
    <>
      <p>Antes: {sideName(diff.then)} · Después: {sideName(diff.now)}</p>
      <dl className="facts" aria-label="Cambios entre los dos momentos">
        <Change label="Miembros" figure={diff.members} />
        <Members label="Miembros nuevos" count={diff.members.joined} sample={diff.members.joinedSample} />
        <Members label="Miembros que se fueron" count={diff.members.left} sample={diff.members.leftSample} />
        <Change label="Pases" figure={diff.passes} />
        <Change label="Puntos" figure={diff.points} />
        <Change label="Fondos" figure={diff.funds} format={dollars} />
      </dl>
      <Movers movers={diff.movers} among={diff.moversAmong} />
    </>
  );
}

export interface ReplayComparisonProps {
  /** The ready replays, newest first. */
  replays: ReplayStatus[];
  comparison: TimeMachineState['comparison'];
  onCompare: (pair: { from: string; to: string }) => void;
}

/** Two moments side by side: two ready replays, or one and now. */
export function ReplayComparison({ replays, comparison, onCompare }: ReplayComparisonProps) {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState(NOW);
  const options = [...replays.map((r) => ({ id: r.id, name: replayName(r) })), { id: NOW, name: 'Ahora' }];
  // A choice whose replay was deleted falls back to the newest replay, and to now.
  const kept = (id: string) => options.some((o) => o.id === id);
  const chosenFrom = kept(from) ? from : (replays[0]?.id ?? '');
  const chosenTo = kept(to) ? to : NOW;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onCompare({ from: chosenFrom, to: chosenTo });
  };
  if (replays.length === 0) return <p className="muted">Para comparar, reconstruye antes algún momento.</p>;
  return (
    <>
      <form className="row-actions" noValidate onSubmit={submit} aria-label="Comparar dos momentos">
        <Field label="Antes">
          <select value={chosenFrom} onChange={(e) => setFrom(e.target.value)}>
            {options.map((o) => <option key={o.id} value={o.id}>{o.name}</option>)}
          </select>
        </Field>
        <Field label="Después">
          <select value={chosenTo} onChange={(e) => setTo(e.target.value)}>
            {options.map((o) => <option key={o.id} value={o.id}>{o.name}</option>)}
          </select>
        </Field>
        <button type="submit" className="button" disabled={comparison.loading || chosenFrom === chosenTo}>Comparar</button>
      </form>
      {comparison.error && <p className="error" role="alert">{comparison.error}</p>}
      {comparison.diff && <DiffView diff={comparison.diff} />}
    </>
  );
}
