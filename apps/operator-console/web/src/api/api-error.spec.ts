import { ApiError, missingScope, NETWORK_ERROR, parseApiError, toApiError } from './api-error';

describe('parseApiError', () => {
  it('reads the code, message, fields and details of an error body', () => {
    const body = JSON.stringify({
      error: {
        code: 'VALIDATION_FAILED',
        message: 'name is empty',
        fields: [{ field: 'name', reason: 'must not be empty' }, { nonsense: true }],
        details: { importId: '7' },
      },
    });
    const error = parseApiError(400, body);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', message: 'name is empty' });
    expect(error.fields).toEqual([{ field: 'name', reason: 'must not be empty' }]);
    expect(error.details).toEqual({ importId: '7' });
  });

  it('names a body that is not an error body by its status, with its text stripped of markup', () => {
    const error = parseApiError(502, '<html><body><h1>Bad   Gateway</h1></body></html>');
    expect(error).toMatchObject({ status: 502, code: 'HTTP_502', message: 'Bad Gateway' });
    expect(error.fields).toEqual([]);
  });

  it('says the status when the body is empty', () => {
    expect(parseApiError(500, '').message).toBe('The service answered HTTP 500');
  });

  it('ignores an error member without a string code', () => {
    expect(parseApiError(400, JSON.stringify({ error: { code: 4 } })).code).toBe('HTTP_400');
  });
});

describe('toApiError', () => {
  it('keeps an ApiError and turns anything else into a network error', () => {
    const refusal = new ApiError({ status: 409, code: 'X', message: 'm' });
    expect(toApiError(refusal)).toBe(refusal);
    expect(toApiError(new TypeError('Failed to fetch'))).toMatchObject({
      status: 0,
      code: NETWORK_ERROR,
      message: 'No answer from the server: Failed to fetch',
    });
  });
});

describe('missingScope', () => {
  it('reads the scope from the details, else from the message', () => {
    const withDetails = new ApiError({
      status: 403,
      code: 'AUTH_SCOPE_MISSING',
      message: 'x',
      details: { scope: 'audit:read' },
    });
    const fromMessage = new ApiError({
      status: 403,
      code: 'AUTH_SCOPE_MISSING',
      message: 'This route needs the dead-letters:admin scope',
    });
    expect(missingScope(withDetails)).toBe('audit:read');
    expect(missingScope(fromMessage)).toBe('dead-letters:admin');
    expect(missingScope(new ApiError({ status: 403, code: 'C', message: 'no' }))).toBeUndefined();
  });
});
