import { SetMetadata } from '@nestjs/common';
import type { ErrorCode, ViewSchema } from '@ums/contracts';

export const API_ANSWER_METADATA = 'ums:openapi-answer';
export const API_ERRORS_METADATA = 'ums:openapi-errors';
export const API_EXAMPLE_METADATA = 'ums:openapi-example';
export const API_UPLOAD_METADATA = 'ums:openapi-upload';

/** The statuses a route's own refusals answer with (the error's kind decides it; see ErrorResponseFilter). */
export type ErrorStatus = 400 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 503;

/** A route's own error codes by status; the common ones (auth, validation, body) are added for it. */
export type ApiErrorMap = Readonly<Partial<Record<ErrorStatus, readonly ErrorCode[]>>>;

/** One event of a server-sent event stream: its `event:` name and the JSON view its `data:` holds. */
export interface ApiEventSpec {
  readonly name: string;
  readonly view: ViewSchema;
}

/** What a route answers on success: a JSON view, a file of another media type, or server-sent events. */
export type ApiAnswerSpec =
  | { readonly kind: 'json'; readonly view: ViewSchema }
  | {
      readonly kind: 'file';
      readonly mediaType: string;
      readonly example: string;
      readonly description: string;
    }
  | { readonly kind: 'events'; readonly description: string; readonly events: readonly ApiEventSpec[] };

/** The route answers `view` (its schema and example in the OpenAPI document). */
export const ApiAnswer = (view: ViewSchema): MethodDecorator =>
  SetMetadata<string, ApiAnswerSpec>(API_ANSWER_METADATA, { kind: 'json', view });

/** The route answers a file (e.g. `text/csv`) rather than JSON. */
export const ApiFileAnswer = (mediaType: string, description: string, example: string): MethodDecorator =>
  SetMetadata<string, ApiAnswerSpec>(API_ANSWER_METADATA, { kind: 'file', mediaType, description, example });

/**
 * The route answers server-sent events (`text/event-stream`): `description` says when each is sent; each
 * event's data schema goes to the document's components, and its example into the stream's example.
 */
export const ApiEventStream = (description: string, events: readonly ApiEventSpec[]): MethodDecorator =>
  SetMetadata<string, ApiAnswerSpec>(API_ANSWER_METADATA, { kind: 'events', description, events });

/** The error codes the route itself may answer, by status, e.g. `{ 404: [CampaignErrorCode.NotFound] }`. */
export const ApiErrors = (errors: ApiErrorMap): MethodDecorator =>
  SetMetadata<string, ApiErrorMap>(API_ERRORS_METADATA, errors);

/** A route reading a file upload itself (multipart/form-data), rather than a JSON body DTO. */
export interface ApiUploadSpec {
  /** The form field holding the file. */
  readonly field: string;
  /** The file's media type, e.g. `text/csv`. */
  readonly mediaType: string;
  readonly description: string;
  readonly example: string;
}

/** The route takes a multipart/form-data upload with one file (shown with its example). */
export const ApiUpload = (upload: ApiUploadSpec): MethodDecorator =>
  SetMetadata<string, ApiUploadSpec>(API_UPLOAD_METADATA, upload);

/**
 * An example of a request body DTO, shown in the OpenAPI document: typed as the DTO, and a test passes
 * it through the validation pipe's rules, so it is always one the API accepts.
 */
export function ApiExample<T extends object>(example: NoInfer<T>): (target: new () => T) => void {
  return (target) => Reflect.defineMetadata(API_EXAMPLE_METADATA, example, target);
}

/** The example a DTO class declares with `@ApiExample`, if any. */
export function apiExampleOf(type: unknown): object | undefined {
  return typeof type === 'function'
    ? (Reflect.getMetadata(API_EXAMPLE_METADATA, type) as object | undefined)
    : undefined;
}
