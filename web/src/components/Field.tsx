import { useId, type ReactElement, cloneElement } from 'react';

export interface FieldProps {
  label: string;
  error?: string | undefined;
  hint?: string;
  /** The input; it receives id and the aria wiring. */
  children: ReactElement<{ id?: string; 'aria-invalid'?: boolean; 'aria-describedby'?: string }>;
}

/** Label, control and its first validation message (docs/product.md §5). */
export function Field({ label, error, hint, children }: FieldProps) {
  const id = useId();
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [error ? errorId : '', hint ? hintId : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field${error ? ' has-error' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {cloneElement(children, { id, 'aria-invalid': Boolean(error), 'aria-describedby': describedBy })}
      {hint && <small id={hintId} className="hint">{hint}</small>}
      {error && <small id={errorId} className="error" role="alert">{error}</small>}
    </div>
  );
}
