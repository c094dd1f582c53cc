import { useEffect, useRef, useState } from 'preact/hooks';
import type { Service } from '../api/api.client';
import { client } from '../api/console-client';
import { type LiveStatus, runLiveStream } from '../live/live-stream';

/**
 * Follows a server-sent events route of the API while the component is mounted (null: none): each
 * event goes to `onMessage` (the latest one given); the stream closes when the component unmounts or
 * the path changes.
 */
export function useLiveStream(
  service: Service,
  path: string | null,
  onMessage: (event: string, data: string) => void,
): LiveStatus {
  const [status, setStatus] = useState<LiveStatus>({ kind: 'connecting' });
  const handler = useRef(onMessage);
  handler.current = onMessage;
  useEffect(() => {
    if (path === null) return undefined;
    const controller = new AbortController();
    void runLiveStream({
      open: (signal) => client.send(service, path, { accept: 'text/event-stream', signal }),
      onMessage: (event, data) => handler.current(event, data),
      onStatus: setStatus,
      signal: controller.signal,
    });
    return () => controller.abort();
  }, [service, path]);
  return status;
}
