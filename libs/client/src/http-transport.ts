import createClient, { type Client } from 'openapi-fetch';
import type { ClientOptions, CreateOptions, FetchLike, UploadFile } from './client.options';
import { BAD_RESPONSE, errorFromAnswer, UmsApiError, UmsNetworkError } from './client.errors';
import type { operations } from './generated/campaign-scheduler';
import { multipartBody } from './multipart-body';

type HeaderOf<Op> = Op extends { readonly parameters: { readonly header?: infer H } }
  ? keyof NonNullable<H>
  : never;

/** Header names as the documents spell them (a renamed one fails to compile). */
const TENANT_HEADER: HeaderOf<operations['Campaigns_list']> = 'x-ums-tenant';
const IDEMPOTENCY_HEADER: HeaderOf<operations['Campaigns_create']> = 'Idempotency-Key';

const JSON_TYPE = 'application/json';

/** `?a=1&b=x` as a form would send it (URLSearchParams), from the values that are set. */
function formQuery(query: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const each of Array.isArray(value) ? (value as unknown[]) : [value])
      params.append(name, String(each));
  }
  return params.toString();
}

/** What the client's fetch gets: a JSON body as its text, an upload as the stream it is. */
async function initOf(request: Request): Promise<RequestInit> {
  const headers = Object.fromEntries(request.headers);
  const streamed = (headers['content-type'] ?? '').startsWith('multipart/');
  const body = request.body === null ? undefined : streamed ? request.body : await request.text();
  return {
    method: request.method,
    headers,
    signal: request.signal,
    ...(body === undefined ? {} : { body }),
    ...(streamed ? { duplex: 'half' as const } : {}),
  };
}

/**
 * One UMS service over HTTP, typed by its OpenAPI document's `paths` (openapi-fetch). Every request
 * carries the bearer key and, for the operator, `X-Ums-Tenant`. A refusal throws UmsApiError, no
 * answer UmsNetworkError; a JSON call answered with something else than JSON is a BAD_RESPONSE.
 */
export class HttpTransport<Paths extends object> {
  readonly http: Client<Paths>;
  readonly baseUrl: string;
  readonly service: string;
  private readonly fetchFn: FetchLike;
  private readonly timeoutMs: number | undefined;

  constructor(options: ClientOptions & { readonly service: string }) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.service = options.service;
    this.timeoutMs = options.timeoutMs;
    this.fetchFn = options.fetch ?? ((url, init) => fetch(url, init));
    this.http = createClient<Paths>({
      baseUrl: this.baseUrl,
      headers: {
        ...(options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` }),
        ...(options.tenant === undefined ? {} : { [TENANT_HEADER]: options.tenant }),
      },
      querySerializer: formQuery,
      fetch: (request: Request) => this.exchange(request),
    });
  }

  /** Options of a JSON call: it accepts JSON and is cut after the client's timeout. */
  json(): { headers: { accept: string }; signal?: AbortSignal } {
    return {
      headers: { accept: JSON_TYPE },
      ...(this.timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(this.timeoutMs) }),
    };
  }

  /** The `Idempotency-Key` header parameter of a create, when a key is given. */
  idempotency(options: CreateOptions | undefined): { [IDEMPOTENCY_HEADER]?: string } {
    return options?.idempotencyKey === undefined ? {} : { [IDEMPOTENCY_HEADER]: options.idempotencyKey };
  }

  /**
   * Options of a multipart upload of `file` as the form field `field`: streamed, never cut by the
   * timeout (the answer comes once the service has read the whole file). The document types the part
   * as a string: the file's name stands in for it; the serializer sends the bytes.
   */
  upload<F extends string>(field: F, file: UploadFile) {
    const multipart = multipartBody(field, file);
    return {
      body: { [field]: file.fileName } as Record<F, string>,
      bodySerializer: () => multipart.body,
      headers: { accept: JSON_TYPE, 'content-type': multipart.contentType },
      duplex: 'half' as const,
    };
  }

  /** Options of a download: the answer's body as a stream, not cut by the timeout. */
  download(contentType: string): { headers: { accept: string }; parseAs: 'stream' } {
    return { headers: { accept: contentType }, parseAs: 'stream' };
  }

  /** The data of a call's 2xx answer (any other was thrown as an error by `exchange`). */
  async data<R extends { readonly data?: unknown; readonly response: Response }>(
    pending: Promise<R>,
  ): Promise<NonNullable<R['data']>> {
    const result = await pending;
    return result.data as NonNullable<R['data']>;
  }

  /** The body of a download's 2xx answer. */
  async stream<R extends { readonly data?: unknown; readonly response: Response }>(
    pending: Promise<R>,
  ): Promise<ReadableStream<Uint8Array>> {
    const { response } = await pending;
    return response.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
  }

  private async exchange(request: Request): Promise<Response> {
    const init = await initOf(request);
    // Only JSON calls are cut by the timeout (see json()): an upload's request is multipart.
    const jsonCall = request.headers.get('accept') === JSON_TYPE;
    const timed = jsonCall && !(request.headers.get('content-type') ?? '').startsWith('multipart/');
    const timeoutMs = timed ? this.timeoutMs : undefined;
    const answered = async (): Promise<Response> => {
      const response = await this.fetchFn(request.url, init);
      if (response.status < 200 || response.status >= 300) {
        throw errorFromAnswer(response.status, await response.text());
      }
      if (!jsonCall) return response;
      const text = await response.text();
      if (text !== '') checkJson(request, response.status, text);
      return new Response(text === '' ? null : text, { status: response.status, headers: response.headers });
    };
    try {
      return await answered();
    } catch (error: unknown) {
      if (error instanceof UmsApiError) throw error;
      throw new UmsNetworkError({
        cause: error,
        service: this.service,
        baseUrl: this.baseUrl,
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      });
    }
  }
}

function checkJson(request: Request, status: number, text: string): void {
  try {
    JSON.parse(text);
  } catch {
    const { pathname } = new URL(request.url);
    throw new UmsApiError({
      status,
      code: BAD_RESPONSE,
      message: `${request.method} ${pathname} answered ${status} with a body that is not JSON`,
    });
  }
}
