import { formatNumber } from '../../../lib/format';
import { formatMoment } from './moment';
import type { ReplayStatus } from '@pass/events/kernel';

const STATES: Record<ReplayStatus['status'], string> = { running: 'En curso', ready: 'Lista', failed: 'Fallida' };

/** How a replay is named: its moment, else its event position. */
export const replayName = (replay: Pick<ReplayStatus, 'at' | 'position'>) => formatMoment(replay.at) || `posición ${replay.position ?? '—'}`;

export interface ReplayListProps {
  replays: ReplayStatus[];
  shownId: string;
  onShow: (id: string) => void;
  onDelete: (id: string) => void;
  /** Poll a running replay again (after the poll gave up). */
  onWatch: (id: string) => void;
}

/** The replays kept on the server for this dashboard: progress while they run, then shown on request. */
export function ReplayList({ replays, shownId, onShow, onDelete, onWatch }: ReplayListProps) {
  if (replays.length === 0) return <p className="muted">Ninguna reconstrucción todavía.</p>;
  return (
    <ul className="admin-posts" aria-label="Reconstrucciones">
      {replays.map((r) => (
        <li key={r.id} aria-current={r.id === shownId ? 'true' : undefined}>
          <div>
            <strong>{replayName(r)}</strong> · {STATES[r.status]} · {formatNumber(r.events)} eventos
            {r.status === 'running' && (
              <div>
                <progress max={1} value={r.progress} aria-label={`Progreso de ${replayName(r)}`} /> {formatNumber(Math.round(r.progress * 100))} %
              </div>
            )}
          </div>
          <div className="row-actions">
            {r.status === 'ready' && r.id !== shownId && (
              <button type="button" className="button" aria-label={`Ver ${replayName(r)}`} onClick={() => onShow(r.id)}>Ver</button>
            )}
            {r.status === 'running' && (
              <button type="button" className="button" aria-label={`Consultar ${replayName(r)}`} onClick={() => onWatch(r.id)}>Consultar</button>
            )}
            <button type="button" className="button danger" aria-label={`Eliminar ${replayName(r)}`} onClick={() => onDelete(r.id)}>Eliminar</button>
          </div>
        </li>
      ))}
    </ul>
  );
}
