import type { MemberStoryCard, MemberStoryEntry } from '@pass/events/kernel';
import { CloseIcon } from '../../components/Icons';
import { formatDate, formatNumber } from '../../lib/format';
import { useDialog } from '../../lib/hooks';
import { useAppDispatch, useAppSelector } from '../../lib/store-hooks';
import { adminActions } from './slice';

/** The card as the site showed it after the chosen event (docs/product.md §2, the admin's story). */
function StoryCard({ card }: { card: MemberStoryCard }) {
  if (card.status === 'none') return <p>Sin tarjeta publicada.</p>;
  if (card.status === 'erased') return <p>Tarjeta borrada: los datos personales del miembro se destruyeron.</p>;
  return (
    <dl className="facts">
      <dt>Nombre</dt>
      <dd>{card.fullname}</dd>
      <dt>País</dt>
      <dd>{card.country || 'ninguno'}</dd>
      <dt>Enlace</dt>
      <dd>{card.link}</dd>
      <dt>Mensaje</dt>
      <dd>{card.message}</dd>
      <dt>Imagen</dt>
      <dd>{card.imageUrl ? <img className="story-image" src={card.imageUrl} alt={`Imagen de la tarjeta de ${card.fullname}`} /> : 'Reemplazada después (ya no se guarda)'}</dd>
    </dl>
  );
}

/** One entry of the story: the event, then the balances, priority and card after it, with "Anterior" / "Siguiente". */
function StoryStep({ entries, step }: { entries: MemberStoryEntry[]; step: number }) {
  const dispatch = useAppDispatch();
  const entry = entries[step];
  if (!entry) return null;
  const goTo = (to: number) => dispatch(adminActions.historyStepped(to));
  return (
    <section className="card story-step" aria-labelledby="story-step-title">
      <div aria-live="polite">
        <h3 id="story-step-title">Estado tras el evento {step + 1} de {entries.length}</h3>
        <p>
          {formatDate(entry.at)} · {entry.description}
        </p>
        <dl className="facts">
          <dt>Saldo</dt>
          <dd>{formatNumber(entry.points)}</dd>
          <dt>Pases</dt>
          <dd>{formatNumber(entry.passes)}</dd>
          <dt>Prioridad</dt>
          <dd>{entry.priority || 'ninguna'}</dd>
        </dl>
        <h4>Tarjeta</h4>
        <StoryCard card={entry.card} />
      </div>
      <div className="row-actions">
        <button type="button" className="button" disabled={step === 0} onClick={() => goTo(step - 1)}>Anterior</button>
        <button type="button" className="button" disabled={step === entries.length - 1} onClick={() => goTo(step + 1)}>Siguiente</button>
      </div>
    </section>
  );
}

function StoryTable({ entries, step }: { entries: MemberStoryEntry[]; step: number }) {
  const dispatch = useAppDispatch();
  return (
    <div className="table-scroll">
      <table className="registry">
        <thead>
          <tr>
            <th scope="col">Fecha</th>
            <th scope="col">Evento</th>
            <th scope="col">Puntos</th>
            <th scope="col">Saldo</th>
            <th scope="col">Pases</th>
            <th scope="col">Estado</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e, i) => (
            <tr key={e.revision} className={i === step ? 'selected' : undefined} aria-current={i === step ? 'step' : undefined}>
              <td>{formatDate(e.at)}</td>
              <td>{e.description}</td>
              <td>{e.pointsDelta > 0 ? `+${formatNumber(e.pointsDelta)}` : formatNumber(e.pointsDelta)}</td>
              <td>{formatNumber(e.points)}</td>
              <td>{formatNumber(e.passes)}</td>
              <td>
                <button type="button" className="button" aria-label={`Ver el estado tras el evento ${i + 1}`} onClick={() => dispatch(adminActions.historyStepped(i))}>
                  Ver
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A member's story (point history): the events, and the state after the one the admin steps to. */
export function HistoryPanel() {
  const dispatch = useAppDispatch();
  const { userId, entries, loading, step } = useAppSelector((state) => state.admin.history);
  const close = () => dispatch(adminActions.historyClosed());
  const ref = useDialog<HTMLDivElement>(close);
  if (!userId) return null;
  return (
    <div ref={ref} tabIndex={-1} className="checkout" role="dialog" aria-modal="true" aria-labelledby="history-title">
      <div className="checkout-inner wide">
        <header>
          <h2 id="history-title">Historial de puntos</h2>
          <button type="button" className="icon-button" aria-label="Cerrar historial" onClick={close}>
            <CloseIcon />
          </button>
        </header>
        <p>
          <a className="button" href={`/api/admin/members/${encodeURIComponent(userId)}/history?format=csv`} download>
            Descargar CSV
          </a>
        </p>
        {loading ? (
          <p className="muted">Cargando…</p>
        ) : (
          <>
            <StoryStep entries={entries} step={step} />
            <StoryTable entries={entries} step={step} />
          </>
        )}
      </div>
    </div>
  );
}
