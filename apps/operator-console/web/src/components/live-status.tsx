import type { LiveStatus } from '../live/live-stream';
import { ErrorAlert } from './error-alert';

/** Whether the page is live, reconnecting (and why) or stopped (with the error). */
export function LiveStatusLine({ status }: { status: LiveStatus }) {
  switch (status.kind) {
    case 'connecting':
      return <p class="live-status live-connecting">Connecting to live updates…</p>;
    case 'live':
      return (
        <p class="live-status live-on">
          <span class="live-dot" aria-hidden="true" /> Live
        </p>
      );
    case 'retrying':
      return (
        <p class="live-status live-retrying">
          Live updates interrupted ({status.error.code}: {status.error.message}); reconnecting in{' '}
          {Math.ceil(status.inMs / 1000)} s.
        </p>
      );
    case 'stopped':
      return <ErrorAlert error={status.error} context="Live updates stopped" />;
  }
}
