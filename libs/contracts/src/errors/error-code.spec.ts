import * as apiKey from './api-key-error-code.enum';
import * as audience from './audience-error-code.enum';
import * as auth from './auth-error-code.enum';
import * as callback from './callback-error-code.enum';
import * as campaign from './campaign-error-code.enum';
import * as credential from './credential-error-code.enum';
import * as deadLetter from './dead-letter-error-code.enum';
import { describeFailure } from './describe-failure';
import { ERROR_CODE_AREAS, isErrorCode } from './error-code';
import * as gateway from './gateway-error-code.enum';
import * as http from './http-error-code.enum';
import * as idempotency from './idempotency-error-code.enum';
import * as live from './live-error-code.enum';
import * as handling from './message-handling-error-code.enum';
import * as optOut from './opt-out-error-code.enum';
import * as credit from './credit-error-code.enum';
import * as contactList from './contact-list-error-code.enum';
import * as rateLimit from './rate-limit-error-code.enum';
import * as run from './run-error-code.enum';
import * as sendOutcome from './send-outcome-code.enum';
import * as startup from './startup-error-code.enum';
import * as webhook from './webhook-error-code.enum';

/** Every enum the area files export, by name. */
const ENUMS: ReadonlyMap<string, object> = new Map(
  [
    apiKey,
    audience,
    auth,
    callback,
    campaign,
    credential,
    deadLetter,
    gateway,
    http,
    idempotency,
    handling,
    live,
    optOut,
    credit,
    contactList,
    rateLimit,
    run,
    sendOutcome,
    startup,
    webhook,
  ].flatMap((module) => Object.entries(module)),
);

/** The dead-letter schema's (and the messages table's) limit on a code. */
const MAX_CODE_CHARS = 64;

describe('error code catalogue', () => {
  const all = ERROR_CODE_AREAS.flatMap((area) => Object.values(area.codes).map((code) => ({ area, code })));

  it('lists every enum of the area files in exactly one area, under its own name', () => {
    const listed = ERROR_CODE_AREAS.map((a) => a.name);
    expect(new Set(listed).size).toBe(listed.length);
    expect([...listed].sort()).toEqual([...ENUMS.keys()].sort());
    for (const area of ERROR_CODE_AREAS) expect(area.codes).toBe(ENUMS.get(area.name));
  });

  it('gives every code one area: no value appears twice', () => {
    const seen = new Map<string, string>();
    const repeated: string[] = [];
    for (const { area, code } of all) {
      const first = seen.get(code);
      if (first !== undefined) repeated.push(`${code} (${first}, ${area.name})`);
      seen.set(code, area.name);
    }
    expect(repeated).toEqual([]);
  });

  it('writes codes in UPPER_SNAKE_CASE, at most 64 characters', () => {
    const bad = all
      .map(({ code }) => code)
      .filter((code) => !/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/.test(code) || code.length > MAX_CODE_CHARS);
    expect(bad).toEqual([]);
  });

  it("starts each code with its area's prefix where the area has one", () => {
    const strays = all
      .filter(({ area, code }) => area.prefix !== undefined && !code.startsWith(area.prefix))
      .map(({ area, code }) => `${area.name}: ${code}`);
    expect(strays).toEqual([]);
    for (const area of ERROR_CODE_AREAS) {
      if (area.prefix !== undefined) expect(area.prefix).toMatch(/^[A-Z][A-Z0-9_]*_$/);
    }
  });

  it('recognises its own codes and no others', () => {
    expect(isErrorCode(http.HttpErrorCode.Unexpected)).toBe(true);
    expect(isErrorCode(handling.MessageHandlingErrorCode.RetriesExhausted)).toBe(true);
    expect(isErrorCode('ER_LOCK_DEADLOCK')).toBe(false);
    expect(isErrorCode('RetriesExhausted')).toBe(false);
  });
});

describe('describeFailure', () => {
  it('puts the code first, then the text', () => {
    expect(describeFailure(webhook.DeliveryErrorCode.Timeout, 'no answer within 1000 ms')).toBe(
      'TIMEOUT: no answer within 1000 ms',
    );
  });
});
