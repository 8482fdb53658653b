// A titled part of a long form that folds away: its button says whether it is open
// (aria-expanded), and it cannot be folded while it holds a problem to fix.
import { useId, useState, type ReactNode } from 'react';

interface DisclosureProps {
  title: string;
  /** Open at first, e.g. when it holds values already. */
  defaultOpen?: boolean;
  /** Held open, e.g. while one of its fields shows an error. */
  forceOpen?: boolean;
  /** Said beside the title while folded, e.g. what is set inside. */
  summary?: string;
  children: ReactNode;
}

export function Disclosure({ title, defaultOpen = false, forceOpen = false, summary, children }: DisclosureProps) {
  const id = useId();
  const [open, setOpen] = useState(defaultOpen);
  const shown = open || forceOpen;
  return (
    <div className="disclosure">
      <h3>
        <button type="button" className="disclosure-toggle" aria-expanded={shown} aria-controls={id} onClick={() => setOpen(!shown)}>
          <span aria-hidden="true" className="disclosure-arrow">
            {shown ? '▾' : '▸'}
          </span>
          {title}
        </button>
        {!shown && summary && <span className="muted disclosure-summary">{summary}</span>}
      </h3>
      <div id={id} role="group" aria-label={title} hidden={!shown} className="disclosure-body">
        {children}
      </div>
    </div>
  );
}
