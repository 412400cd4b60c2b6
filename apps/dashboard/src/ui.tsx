import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

export const STATE_COLOURS: Record<string, string> = {
  closed: '#2e7d32',
  open: '#c62828',
  probing: '#ef6c00',
  ramping: '#1565c0',
};

/** A breaker state as a colour and a word (never colour alone). */
export function StateBadge({ state }: { state: string }) {
  return (
    <span class="badge" data-state={state} style={{ background: STATE_COLOURS[state] ?? '#555' }}>
      {state.toUpperCase()}
    </span>
  );
}

export function ErrorLine({ error }: { error: string | null }) {
  return error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;
}

export const ago = (iso: string | number, now = Date.now()): string => {
  const ms = now - (typeof iso === 'number' ? iso : Date.parse(iso));
  if (ms < 1000) return 'just now';
  if (ms < 60_000) return `${Math.round(ms / 1000)} s ago`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min ago`;
  return `${Math.round(ms / 3_600_000)} h ago`;
};

/**
 * A confirmation with a required reason: `onConfirm(reason)` runs only with a non-empty reason, and
 * its error (if it throws) is shown in the dialog.
 */
export function ConfirmDialog(props: {
  title: string;
  children?: ComponentChildren;
  confirmLabel: string;
  onConfirm: (reason: string) => Promise<void>;
  onClose: () => void;
}) {
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const confirm = async (e: Event) => {
    e.preventDefault();
    if (reason.trim() === '') return setError('A reason is required; it is recorded in the log.');
    setBusy(true);
    try {
      await props.onConfirm(reason.trim());
      props.onClose();
    } catch (err) {
      setError((err as Error).message);
      setBusy(false);
    }
  };
  return (
    <div class="modal-backdrop" role="dialog" aria-modal="true" aria-label={props.title}>
      <form class="modal" onSubmit={confirm}>
        <h3>{props.title}</h3>
        {props.children}
        <label>
          Reason (recorded in the log)
          <textarea
            name="reason"
            aria-required="true"
            maxLength={500}
            value={reason}
            onInput={(e) => setReason((e.target as HTMLTextAreaElement).value)}
          />
        </label>
        <ErrorLine error={error} />
        <div class="row">
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" class="danger" disabled={busy} data-testid="confirm">
            {props.confirmLabel}
          </button>
        </div>
      </form>
    </div>
  );
}
