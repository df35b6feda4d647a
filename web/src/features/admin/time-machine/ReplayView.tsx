import { ANONYMOUS_NICKNAME, LIMITS, chatNickname, dayCounter, isHighlightedChatMessage, type ChatHistory, type CountriesView, type MainDataView, type RankingEntry } from '@pass/events/kernel';
import { formatFunds, formatNumber } from '../../../lib/format';
import type { ListState } from '../../../lib/list';
import { formatMoment } from './moment';

// A replay's bodies drawn with the dashboard's shared building blocks (the public page's
// components belong to other features, and speak English).

/** The home's figures at the replay's moment, and the day counter's reading then. */
export function ReplayFigures({ mainData, at }: { mainData: MainDataView; at: string | null }) {
  const figures: [string, string][] = [
    ['Día', at ? formatNumber(dayCounter(mainData.startDate, new Date(at).getTime())) : '—'],
    ['Pases disponibles', formatNumber(mainData.available)],
    ['Pases tomados', formatNumber(mainData.sold)],
    ['Miembros', formatNumber(mainData.members)],
    ['Fondos recaudados', `$${formatFunds(mainData.fundsRaised)}`],
    ['Vistas de anuncios', formatNumber(mainData.views)],
    ['Mensajes del chat', formatNumber(mainData.globalMessages)],
  ];
  return (
    <dl className="stats small" aria-label="Cifras en ese momento">
      {figures.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** The country top 5, as home's "Best Countries" counts it. */
export function ReplayCountries({ countries }: { countries: CountriesView }) {
  const top = [...countries.top].sort((a, b) => b.users - a.users).slice(0, LIMITS.topCountries);
  return (
    <section className="card" aria-labelledby="replay-countries-title">
      <h3 id="replay-countries-title">
        Mejores países <span className="pill" title="Países distintos">{formatNumber(countries.distinct)}</span>
      </h3>
      {top.length === 0 ? (
        <p className="muted">Ningún país todavía.</p>
      ) : (
        <ol aria-label="Los 5 mejores países">
          {top.map((c) => (
            <li key={c.country}>
              {c.country} <span className="pill">{formatNumber(c.users)}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

const nameOf = (entry: RankingEntry) => entry.fullname.trim() || ANONYMOUS_NICKNAME;

/** The sponsors' ranking then, searched on the server by name or country like the public one. */
export function ReplayRanking({ ranking, onQuery }: { ranking: ListState<RankingEntry>; onQuery: (q: string) => void }) {
  const rows = [...ranking.items].sort((a, b) => b.passes - a.passes || a.rank - b.rank);
  return (
    <section className="card" aria-labelledby="replay-ranking-title">
      <h3 id="replay-ranking-title">
        Clasificación <span className="pill" title="Miembros encontrados">{formatNumber(ranking.total)}</span>
      </h3>
      <input type="search" className="search" placeholder="Buscar por nombre o país" aria-label="Buscar en la clasificación por nombre o país"
        value={ranking.query} onChange={(e) => onQuery(e.target.value)} />
      {rows.length === 0 ? (
        <p className="muted">Ningún miembro encontrado.</p>
      ) : (
        <div className="table-scroll">
          <table className="registry" aria-label="Clasificación en ese momento">
            <thead>
              <tr>
                <th scope="col">Puesto</th>
                <th scope="col">Nombre</th>
                <th scope="col">País</th>
                <th scope="col">Pases</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((m) => (
                <tr key={m.userId}>
                  <td>{formatNumber(m.rank)}</td>
                  <td>{nameOf(m)}</td>
                  <td>{m.country}</td>
                  <td>{formatNumber(m.passes)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** The global chat's newest messages then, special members' highlighted as in the chat panel. */
export function ReplayChat({ chat }: { chat: ChatHistory }) {
  return (
    <section className="card" aria-labelledby="replay-chat-title">
      <h3 id="replay-chat-title">
        Chat <span className="pill" title="Mensajes">{formatNumber(chat.total)}</span>
      </h3>
      {chat.messages.length === 0 ? (
        <p className="muted">Ningún mensaje.</p>
      ) : (
        <ol className="chat-messages" aria-label="Mensajes del chat en ese momento">
          {chat.messages.map((m) => (
            <li key={m.id} className={isHighlightedChatMessage(m.priority) ? 'highlighted' : 'plain'}>
              <strong>{chatNickname(m.nickname)}:</strong> <span>{m.message}</span>{' '}
              {m.sentAt && <small className="muted">{formatMoment(m.sentAt)}</small>}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
