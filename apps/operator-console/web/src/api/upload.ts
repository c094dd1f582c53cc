import type { ApiClient, Service } from './api.client';
import { ApiError, NETWORK_ERROR, parseApiError } from './api-error';

export interface UploadProgress {
  readonly loaded: number;
  /** 0 when the browser cannot tell. */
  readonly total: number;
}

export interface UploadOptions {
  readonly service: Service;
  readonly path: string;
  /** The multipart field name (`file`). */
  readonly field: string;
  readonly file: File;
  readonly onProgress: (progress: UploadProgress) => void;
  readonly signal?: AbortSignal;
}

function headersOf(client: ApiClient): [string, string][] {
  const headers: [string, string][] = [];
  client.headers('POST', {}).forEach((value, name) => headers.push([name, value]));
  return headers;
}

/**
 * Posts one file as multipart/form-data with XMLHttpRequest, whose upload events give the progress that
 * fetch does not; the JSON answer, or an ApiError (a 401 or 403 also goes to the app's handlers).
 */
export function uploadFile<T>(client: ApiClient, options: UploadOptions): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', client.url(options.service, options.path));
    for (const [name, value] of headersOf(client)) request.setRequestHeader(name, value);
    request.upload.addEventListener('progress', (event) =>
      options.onProgress({ loaded: event.loaded, total: event.lengthComputable ? event.total : 0 }),
    );
    request.addEventListener('load', () => {
      if (request.status >= 200 && request.status < 300) {
        try {
          resolve(JSON.parse(request.responseText) as T);
        } catch {
          reject(
            new ApiError({ status: request.status, code: 'BAD_RESPONSE', message: 'The answer is not JSON' }),
          );
        }
        return;
      }
      const error = parseApiError(request.status, request.responseText);
      client.report(error);
      reject(error);
    });
    const failed = (message: string) => () =>
      reject(new ApiError({ status: 0, code: NETWORK_ERROR, message }));
    request.addEventListener('error', failed('The upload failed: no answer from the server'));
    request.addEventListener('abort', failed('The upload was cancelled'));
    options.signal?.addEventListener('abort', () => request.abort());
    const form = new FormData();
    form.append(options.field, options.file, options.file.name);
    request.send(form);
  });
}
