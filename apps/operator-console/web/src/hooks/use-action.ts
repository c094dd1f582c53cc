import { useState } from 'preact/hooks';
import { type ApiError, toApiError } from '../api/api-error';

export interface Action {
  readonly busy: boolean;
  readonly error: ApiError | null;
  /** Runs the work once at a time; its error is kept for the dialog to show. True when it succeeded. */
  readonly run: (work: () => Promise<void>) => Promise<boolean>;
  readonly clearError: () => void;
}

/** The state of one confirmed action: busy while it runs, and the API's refusal if any. */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const run = async (work: () => Promise<void>): Promise<boolean> => {
    setBusy(true);
    setError(null);
    try {
      await work();
      return true;
    } catch (thrown) {
      setError(toApiError(thrown));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, clearError: () => setError(null) };
}
