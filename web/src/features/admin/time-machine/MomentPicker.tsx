import { useState, type FormEvent } from 'react';
import { Field } from '../../../components/Field';
import type { MomentChoice } from './moment';

type Kind = MomentChoice['kind'];

const KINDS: [Kind, string][] = [
  ['date', 'Fecha y hora'],
  ['day', 'Día N'],
  ['position', 'Posición del registro'],
];

export interface MomentPickerProps {
  /** The main data's start date (dd/mm/aaaa), day 0; '' when not set. */
  startDate: string;
  creating: boolean;
  onPick: (choice: MomentChoice) => void;
}

/** Which moment to replay: a date and time, the Nth day since the start date, or an event position. */
export function MomentPicker({ startDate, creating, onPick }: MomentPickerProps) {
  const [kind, setKind] = useState<Kind>('date');
  const [local, setLocal] = useState('');
  const [day, setDay] = useState('');
  const [position, setPosition] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (kind === 'date') onPick({ kind, local });
    else if (kind === 'day') onPick({ kind, day: day.trim() === '' ? Number.NaN : Number(day) });
    else onPick({ kind, position });
  };
  return (
    <form className="moment-picker" noValidate onSubmit={submit} aria-label="Elegir momento">
      <fieldset>
        <legend>Momento</legend>
        {KINDS.map(([value, label]) => (
          <label key={value}>
            <input type="radio" name="moment-kind" value={value} checked={kind === value} onChange={() => setKind(value)} /> {label}
          </label>
        ))}
      </fieldset>
      {kind === 'date' && (
        <Field label="Fecha y hora (hora local)">
          <input type="datetime-local" value={local} onChange={(e) => setLocal(e.target.value)} />
        </Field>
      )}
      {kind === 'day' && (
        <Field label="Día" hint={startDate.trim() ? `El día 0 es la fecha de inicio, ${startDate.trim()}.` : 'Sin fecha de inicio en los datos principales.'}>
          <input type="number" min={0} step={1} value={day} onChange={(e) => setDay(e.target.value)} />
        </Field>
      )}
      {kind === 'position' && (
        <Field label="Posición">
          <input value={position} onChange={(e) => setPosition(e.target.value)} />
        </Field>
      )}
      <button type="submit" className="button primary" disabled={creating}>Reconstruir</button>
    </form>
  );
}
