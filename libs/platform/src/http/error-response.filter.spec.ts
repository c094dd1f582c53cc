import { HttpException, NotFoundException } from '@nestjs/common';
import { HttpErrorCode, KafkaErrorCode } from '@ums/contracts';
import { CodedError, InvalidInputError, TooLargeError, UnavailableError } from '../errors/coded-error';
import { describeError } from './error-response.filter';

describe('describeError', () => {
  it('answers refusals with their own message and fields', () => {
    expect(describeError(InvalidInputError.field(HttpErrorCode.TenantInvalid, 'x', 'is bad'))).toEqual([
      400,
      { error: { code: 'TENANT_INVALID', message: 'x: is bad', fields: [{ field: 'x', reason: 'is bad' }] } },
    ]);
    expect(describeError(new TooLargeError(HttpErrorCode.BodyTooLarge, 'body larger than 10 bytes'))[0]).toBe(
      413,
    );
    expect(describeError(new NotFoundException())[1].error.code).toBe('ROUTE_NOT_FOUND');
  });

  it('answers 5xx with the code and a fixed text, never the error message', () => {
    const internal = 'connect ECONNREFUSED 10.1.2.3:3306 (SELECT secret_ciphertext FROM credentials)';
    const stopping = new UnavailableError(HttpErrorCode.ServiceShuttingDown, internal, { importId: '7' });
    expect(describeError(stopping)).toEqual([
      503,
      {
        error: {
          code: 'SERVICE_SHUTTING_DOWN',
          message: 'Service unavailable; retry later',
          details: { importId: '7' },
        },
      },
    ]);
    expect(describeError(new CodedError(KafkaErrorCode.TopicUnknown, internal))).toEqual([
      500,
      { error: { code: 'KAFKA_TOPIC_UNKNOWN', message: 'Unexpected error; see the service log' } },
    ]);
    expect(describeError(new HttpException(internal, 502))).toEqual([
      502,
      { error: { code: 'HTTP_502', message: 'Server error 502; see the service log' } },
    ]);
    const fastify = Object.assign(new Error(internal), { statusCode: 500, code: 'FST_ERR_X' });
    expect(describeError(fastify)).toEqual([
      500,
      { error: { code: 'FST_ERR_X', message: 'Unexpected error; see the service log' } },
    ]);
    expect(JSON.stringify(describeError(new Error(internal)))).not.toContain('ECONNREFUSED');
  });

  it('answers infrastructure failures 503 DEPENDENCY_UNAVAILABLE without the driver text', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED db-1.internal:3306'), {
      code: 'ECONNREFUSED',
      fatal: true,
    });
    const wrapped = Object.assign(new Error('Query failed: SELECT * FROM runs'), { driverError: refused });
    const deadlock = Object.assign(new Error('Deadlock found'), { code: 'ER_LOCK_DEADLOCK' });
    const internal = new CodedError(KafkaErrorCode.TopicUnknown, 'wrapped', undefined, { cause: refused });
    for (const error of [refused, wrapped, deadlock, internal]) {
      const answer = describeError(error);
      expect(answer).toEqual([
        503,
        { error: { code: 'DEPENDENCY_UNAVAILABLE', message: 'Service unavailable; retry later' } },
      ]);
      expect(JSON.stringify(answer)).not.toMatch(/db-1|3306|SELECT/);
    }
    expect(describeError(new Error('a bug'))[0]).toBe(500);
    const busy = new UnavailableError(HttpErrorCode.InFlightBytesExceeded, 'busy');
    expect(describeError(busy)[1].error.code).toBe('IN_FLIGHT_BYTES_EXCEEDED');
  });
});
