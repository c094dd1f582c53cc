import { ApiError } from '../api/api-error';
import { type LiveStatus, runLiveStream } from './live-stream';

/** What fetch does with a signal: rejects once it aborts (at once if it already has). */
function pendingUntilAborted(signal: AbortSignal): Promise<Response> {
  return new Promise<Response>((_resolve, reject) => {
    const fail = (): void => reject(new DOMException('aborted', 'AbortError'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail);
  });
}

/** A response whose body streams the given chunks, then ends. */
function sse(chunks: readonly string[]): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

describe('runLiveStream', () => {
  it('hands over each event, reconnects after the stream ends and stops on a final refusal', async () => {
    const controller = new AbortController();
    const messages: string[] = [];
    const statuses: string[] = [];
    const delays: number[] = [];
    let opened = 0;
    await runLiveStream({
      open: () => {
        opened++;
        if (opened === 1) {
          return Promise.resolve(
            sse([
              ': keep-alive\n\n',
              'event: history\ndata: {"samples":[]}\n\n',
              'event: sam',
              'ple\ndata: 1\n\n',
            ]),
          );
        }
        if (opened === 2) return Promise.reject(new TypeError('fetch failed'));
        return Promise.reject(new ApiError({ status: 404, code: 'RUN_NOT_FOUND', message: 'gone' }));
      },
      onMessage: (event, data) => messages.push(`${event}:${data}`),
      onStatus: (status: LiveStatus) =>
        statuses.push(
          status.kind === 'live' || status.kind === 'connecting'
            ? status.kind
            : `${status.kind}:${status.error.code}`,
        ),
      signal: controller.signal,
      delay: (attempt) => {
        delays.push(attempt);
        return 1;
      },
    });
    expect(messages).toEqual(['history:{"samples":[]}', 'sample:1']);
    expect(statuses).toEqual([
      'connecting',
      'live',
      'retrying:STREAM_ENDED',
      'retrying:NETWORK_ERROR',
      'stopped:RUN_NOT_FOUND',
    ]);
    // The first drop came after events: the backoff starts over (0), and grows on the next failure (1).
    expect(delays).toEqual([0, 1]);
    expect(opened).toBe(3);
  });

  it('ends without a status when the page aborts it', async () => {
    const controller = new AbortController();
    const statuses: string[] = [];
    const done = runLiveStream({
      open: (signal) => pendingUntilAborted(signal),
      onMessage: () => undefined,
      onStatus: (status) => statuses.push(status.kind),
      signal: controller.signal,
    });
    controller.abort();
    await done;
    expect(statuses).toEqual(['connecting']);
  });

  it('drops a connection that goes silent and reconnects', async () => {
    const controller = new AbortController();
    const statuses: string[] = [];
    let opened = 0;
    await runLiveStream({
      open: (signal) => {
        opened++;
        if (opened === 2) controller.abort();
        return pendingUntilAborted(signal);
      },
      onMessage: () => undefined,
      onStatus: (status) =>
        statuses.push(status.kind === 'retrying' ? `retrying:${status.error.code}` : status.kind),
      signal: controller.signal,
      stallMs: 10,
      delay: () => 1,
    });
    expect(statuses).toEqual(['connecting', 'retrying:STREAM_STALLED']);
    expect(opened).toBe(2);
  });
});
