import type { UploadFile } from './client.options';

/** A multipart/form-data body of one file field and its content type (with the boundary). */
export interface MultipartBody {
  readonly contentType: string;
  readonly body: AsyncIterable<Uint8Array>;
}

function randomBoundary(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `----ums-client-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** The file as one form field, streamed as its content is read (never held in memory). */
export function multipartBody(field: string, file: UploadFile): MultipartBody {
  const boundary = randomBoundary();
  const encoder = new TextEncoder();
  const safeName = file.fileName.replace(/["\r\n]/g, '_');
  async function* body(): AsyncGenerator<Uint8Array> {
    yield encoder.encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${safeName}"\r\n` +
        `Content-Type: ${file.contentType}\r\n\r\n`,
    );
    if (file.content instanceof Uint8Array) yield file.content;
    else for await (const chunk of file.content) yield chunk;
    yield encoder.encode(`\r\n--${boundary}--\r\n`);
  }
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: body() };
}
