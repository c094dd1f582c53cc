import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { type ApiError, isAbort, toApiError } from '../api/api-error';

export interface Resource<T> {
  readonly data: T | undefined;
  readonly error: ApiError | null;
  readonly loading: boolean;
  /** Loads again (keeping the data shown until the answer comes). */
  readonly reload: () => void;
}

/**
 * Data loaded from the API for a page: loaded again when `deps` change or on reload(); a call still
 * running when the page is left or the deps change is aborted and its answer dropped.
 */
export function useResource<T>(
  load: (signal: AbortSignal) => Promise<T>,
  deps: readonly unknown[],
): Resource<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(true);
  const [version, setVersion] = useState(0);
  const loader = useRef(load);
  loader.current = load;
  useEffect(() => {
    const controller = new AbortController();
    setLoading(true);
    loader.current(controller.signal).then(
      (value) => {
        if (controller.signal.aborted) return;
        setData(value);
        setError(null);
        setLoading(false);
      },
      (thrown: unknown) => {
        if (controller.signal.aborted || isAbort(thrown)) return;
        setError(toApiError(thrown));
        setLoading(false);
      },
    );
    return () => controller.abort();
  }, [...deps, version]);
  const reload = useCallback(() => setVersion((v) => v + 1), []);
  return { data, error, loading, reload };
}
