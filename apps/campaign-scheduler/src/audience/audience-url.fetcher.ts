import { type BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import { createOutboundAgent, createPublicOnlyAgent, InvalidInputError, TooLargeError } from '@ums/platform';
import type { Readable } from 'node:stream';
import { type Agent, request } from 'undici';
import { AudienceErrorCode } from '@ums/contracts';
import { AudienceConfig } from './audience.config';

/** The URL of an audience file, checked before anything is fetched: http or https only. */
export function parseAudienceUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw InvalidInputError.field(
      AudienceErrorCode.UrlInvalid,
      'url',
      'must be an absolute http or https URL',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw InvalidInputError.field(AudienceErrorCode.UrlInvalid, 'url', 'must use http or https');
  }
  return url;
}

/**
 * Opens audience files by URL with undici: connect, header and body-idle timeouts, no redirects
 * followed, and (unless AUDIENCE_URL_ALLOW_PRIVATE) connections only to public addresses, checked
 * on the addresses DNS returned (libs/platform ssrf-guard).
 */
@Injectable()
export class AudienceUrlFetcher implements BeforeApplicationShutdown {
  private readonly agent: Agent;

  constructor(private readonly config: AudienceConfig) {
    const timeouts = {
      connectTimeoutMs: config.AUDIENCE_URL_TIMEOUT_MS,
      headersTimeoutMs: config.AUDIENCE_URL_TIMEOUT_MS,
      bodyTimeoutMs: config.AUDIENCE_URL_TIMEOUT_MS,
    };
    this.agent = config.AUDIENCE_URL_ALLOW_PRIVATE
      ? createOutboundAgent(timeouts)
      : createPublicOnlyAgent(timeouts);
  }

  /** The response body of a 2xx answer, as a stream; anything else fails. */
  async open(url: URL, signal: AbortSignal): Promise<Readable> {
    const response = await request(url, {
      method: 'GET',
      dispatcher: this.agent,
      signal,
      headers: { accept: 'text/csv, text/plain;q=0.9, */*;q=0.1' },
    });
    const { statusCode, headers, body } = response;
    if (statusCode < 200 || statusCode > 299) {
      // The body is not wanted: undici reads a little of it (so the connection can be reused) or drops it.
      await body.dump();
      const location = typeof headers.location === 'string' ? ` to ${headers.location}` : '';
      const reason =
        statusCode >= 300 && statusCode < 400
          ? `answered a redirect (HTTP ${statusCode}${location}); redirects are not followed`
          : `answered HTTP ${statusCode}`;
      throw new InvalidInputError(AudienceErrorCode.UrlFailed, `The audience URL ${reason}`, [
        { field: 'url', reason },
      ]);
    }
    const length = Number(headers['content-length']);
    if (Number.isFinite(length) && length > this.config.AUDIENCE_MAX_BYTES) {
      await body.dump();
      throw new TooLargeError(
        AudienceErrorCode.TooLarge,
        `The audience file has ${length} bytes; at most ${this.config.AUDIENCE_MAX_BYTES} are accepted`,
      );
    }
    return body;
  }

  // After onModuleDestroy, where the import service aborts running fetches: close() waits for them.
  async beforeApplicationShutdown(): Promise<void> {
    await this.agent.close();
  }
}
