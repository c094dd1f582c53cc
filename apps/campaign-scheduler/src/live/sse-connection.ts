import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';

/** The media type of server-sent events. */
export const EVENT_STREAM_TYPE = 'text/event-stream';

/**
 * Frames skipped in a row, while the client does not read, before its connection is dropped: a minute
 * of frames. A console whose tab sleeps gets its socket buffer's worth and then nothing, not a backlog.
 */
const SKIPS_BEFORE_DROP = 60;

/**
 * One live stream written to the raw response: Fastify hands the reply over (`hijack`), the headers of a
 * stream no proxy may buffer or cache go out at once, then events and comments. A frame is skipped, not
 * queued, while the socket buffer is full; a client that stops reading for long is disconnected.
 */
export class SseConnection {
  private ended = false;
  private skipped = 0;
  private readonly closeListeners: (() => void)[] = [];

  constructor(
    private readonly reply: FastifyReply,
    private readonly onSkipped: () => void,
  ) {}

  /** Sends the headers; a HEAD request ends here. Closes now if the client has already gone. */
  open(): void {
    const raw = this.reply.raw;
    this.reply.hijack();
    raw.on('close', () => this.closed());
    raw.writeHead(200, {
      ...headersOf(this.reply),
      'content-type': `${EVENT_STREAM_TYPE}; charset=utf-8`,
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    });
    raw.flushHeaders();
    if (this.reply.request.method === 'HEAD') this.end();
    else if (raw.destroyed) this.closed();
  }

  /** `event: <name>` with `data:` the JSON of `data` (one line: JSON text has no raw line breaks). */
  event(name: string, data: unknown): void {
    this.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** A comment line, which clients ignore: keeps proxies and load balancers from closing an idle stream. */
  comment(text: string): void {
    this.write(`: ${text}\n\n`);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.reply.raw.end();
  }

  /** Called once when the connection closes, however it ends (the client left, end(), shutdown). */
  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  /** Whether the connection is over. */
  get isClosed(): boolean {
    return this.ended || this.reply.raw.destroyed;
  }

  private write(text: string): void {
    const raw = this.reply.raw;
    if (this.isClosed) return;
    if (raw.writableNeedDrain) {
      this.skipped += 1;
      this.onSkipped();
      if (this.skipped >= SKIPS_BEFORE_DROP) raw.destroy();
      return;
    }
    this.skipped = 0;
    raw.write(text);
  }

  private closed(): void {
    this.ended = true;
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}

/** The headers already set on the reply (by hooks), for the raw response. */
function headersOf(reply: FastifyReply): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined && name !== 'content-length') headers[name] = value;
  }
  return headers;
}
