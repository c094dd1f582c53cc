import { CallbackErrorCode } from '@ums/contracts';
import { UnavailableError } from './coded-error';
import { infrastructureFailure, isInfrastructureError } from './infrastructure-error';

function withProps(message: string, props: Record<string, unknown>): Error {
  return Object.assign(new Error(message), props);
}

describe('infrastructureFailure', () => {
  it('recognises mysql2 connection loss, refusal, deadlocks and lock waits', () => {
    const refused = withProps('connect ECONNREFUSED 127.0.0.1:3306', { code: 'ECONNREFUSED', fatal: true });
    expect(infrastructureFailure(refused)).toEqual({ dependency: 'mysql', code: 'ECONNREFUSED' });
    for (const code of ['PROTOCOL_CONNECTION_LOST', 'ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT']) {
      expect(infrastructureFailure(withProps('x', { code, errno: 1 }))?.dependency).toBe('mysql');
    }
  });

  it('follows TypeORM driverError and Error.cause chains', () => {
    const driver = withProps('Deadlock found', { code: 'ER_LOCK_DEADLOCK' });
    const typeorm = withProps('Query failed', { name: 'QueryFailedError', driverError: driver });
    expect(isInfrastructureError(typeorm)).toBe(true);
    expect(isInfrastructureError(new Error('wrapped', { cause: typeorm }))).toBe(true);
  });

  it('recognises ioredis outages and transient replies, not script errors', () => {
    expect(infrastructureFailure(new Error('Connection is closed.'))?.dependency).toBe('redis');
    expect(infrastructureFailure(new Error('Command timed out'))?.dependency).toBe('redis');
    const maxRetries = withProps('Reached the max retries per request limit', {
      name: 'MaxRetriesPerRequestError',
    });
    expect(infrastructureFailure(maxRetries)?.dependency).toBe('redis');
    expect(isInfrastructureError(withProps('LOADING Redis is loading', { name: 'ReplyError' }))).toBe(true);
    expect(isInfrastructureError(withProps('ERR wrong number of args', { name: 'ReplyError' }))).toBe(false);
  });

  it('treats retriable Kafka errors as infrastructure and record errors as the record', () => {
    const conn = withProps('Connection error', { name: 'KafkaJSConnectionError', retriable: true });
    expect(infrastructureFailure(conn)).toEqual({ dependency: 'kafka', code: 'KafkaJSConnectionError' });
    const tooLarge = withProps('too large', {
      name: 'KafkaJSProtocolError',
      type: 'MESSAGE_TOO_LARGE',
      retriable: false,
    });
    const exhausted = withProps('retries', { name: 'KafkaJSNumberOfRetriesExceeded', cause: tooLarge });
    expect(isInfrastructureError(exhausted)).toBe(false);
    const leaderMoved = withProps('retries', {
      name: 'KafkaJSNumberOfRetriesExceeded',
      cause: withProps('not leader', {
        name: 'KafkaJSProtocolError',
        type: 'NOT_LEADER_OR_FOLLOWER',
        retriable: true,
      }),
    });
    expect(isInfrastructureError(leaderMoved)).toBe(true);
  });

  it('takes UnavailableError as infrastructure, with its dependency', () => {
    const error = new UnavailableError(CallbackErrorCode.CredentialsUnavailable, 'no answer', {
      dependency: 'mysql',
    });
    expect(infrastructureFailure(error)).toEqual({ dependency: 'mysql', code: 'CREDENTIALS_UNAVAILABLE' });
  });

  it('leaves ordinary errors alone', () => {
    expect(isInfrastructureError(new TypeError('x is undefined'))).toBe(false);
    expect(isInfrastructureError(withProps('dup', { code: 'ER_DUP_ENTRY', errno: 1062 }))).toBe(false);
    expect(isInfrastructureError('a string')).toBe(false);
    expect(isInfrastructureError(undefined)).toBe(false);
  });
});
