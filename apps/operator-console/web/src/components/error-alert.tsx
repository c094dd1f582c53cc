import type { ApiError } from '../api/api-error';

/** An API error as the console shows every one: its code and message, and the fields it names. */
export function ErrorAlert({ error, context }: { error: ApiError | null; context?: string }) {
  if (error === null) return null;
  return (
    <div class="alert alert-error" role="alert">
      <p>
        {context === undefined ? null : <span>{context}: </span>}
        <strong class="error-code">{error.code}</strong> <span class="error-message">{error.message}</span>
      </p>
      {error.fields.length === 0 ? null : (
        <ul class="error-fields">
          {error.fields.map((field) => (
            <li key={`${field.field}:${field.reason}`}>
              <code>{field.field}</code>: {field.reason}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
