import type { AddressNormalizer } from '../audience/audience-address';
import { validateRecipient } from '../audience/audience-row';
import type { CompiledTemplate, TemplateContent } from '../template/message-template';

/** The most recipients one test send may name: a test, never a way around campaigns. */
export const MAX_TEST_SEND_RECIPIENTS = 10;

/** One recipient of a test send as the request names it. */
export interface TestSendRecipientInput {
  readonly to: string;
  readonly variables?: Readonly<Record<string, string>>;
}

export interface TestSendRequest {
  readonly recipients: readonly TestSendRecipientInput[];
  /** Defaults for every recipient; a recipient's own variables win. */
  readonly variables?: Readonly<Record<string, string>>;
}

/** One message of a test send: the recipient's stored address, its variables and the rendered content. */
export interface PlannedTestMessage {
  /** 0-based, the recipient's index in the request. */
  readonly position: number;
  readonly address: string;
  readonly variables: Record<string, string>;
  readonly content: TemplateContent;
}

/** `missing`: the template uses a variable the recipient lacks; `invalid`: anything else refused. */
export interface TestSendProblem {
  readonly kind: 'missing' | 'invalid';
  readonly field: string;
  readonly reason: string;
}

export type TestSendPlan =
  | { readonly ok: true; readonly messages: readonly PlannedTestMessage[] }
  | { readonly ok: false; readonly problems: readonly TestSendProblem[] };

/** The address as it is: for variables checked apart from an address already normalized. */
const KEEP_ADDRESS: AddressNormalizer = (raw) => ({ ok: true, address: raw });

/** Why a set of variables is refused (a bad name, value or control character), or undefined. */
function variablesProblem(variables: Readonly<Record<string, string>> | undefined): string | undefined {
  const verdict = validateRecipient({ address: '-', variables }, [], KEEP_ADDRESS);
  return verdict.ok ? undefined : verdict.reason;
}

/** The defaults overlaid with the recipient's own (null-prototype: `__proto__` is only a key). */
function mergedVariables(
  defaults: Readonly<Record<string, string>> | undefined,
  own: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  return Object.assign(Object.create(null) as Record<string, string>, defaults ?? {}, own ?? {});
}

/**
 * Checks a test send before anything is stored or sent, and renders each recipient's content: 1 to
 * MAX_TEST_SEND_RECIPIENTS recipients, each address valid for the campaign's channel (the audience's
 * normalizer) and named once, variables valid as an audience's, and every variable the template uses
 * present and non-blank. Every problem names its field (`recipients[1].to`, `recipients[0].variables`).
 */
export function planTestSend(
  request: TestSendRequest,
  template: CompiledTemplate,
  normalize: AddressNormalizer,
): TestSendPlan {
  const { recipients } = request;
  if (recipients.length < 1 || recipients.length > MAX_TEST_SEND_RECIPIENTS) {
    const reason = `must hold 1 to ${MAX_TEST_SEND_RECIPIENTS} recipients, got ${recipients.length}`;
    return { ok: false, problems: [{ kind: 'invalid', field: 'recipients', reason }] };
  }
  const problems: TestSendProblem[] = [];
  const defaultsProblem = variablesProblem(request.variables);
  if (defaultsProblem !== undefined)
    problems.push({ kind: 'invalid', field: 'variables', reason: defaultsProblem });
  const messages: PlannedTestMessage[] = [];
  const seen = new Map<string, number>();
  recipients.forEach((recipient, position) => {
    const planned = planRecipient(request, recipient, position, template, normalize, seen);
    if ('problem' in planned) problems.push(planned.problem);
    else messages.push(planned);
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, messages };
}

function planRecipient(
  request: TestSendRequest,
  recipient: TestSendRecipientInput,
  position: number,
  template: CompiledTemplate,
  normalize: AddressNormalizer,
  seen: Map<string, number>,
): PlannedTestMessage | { readonly problem: TestSendProblem } {
  const at = `recipients[${position}]`;
  const invalid = (field: string, reason: string) => ({
    problem: { kind: 'invalid' as const, field, reason },
  });
  const address = normalize(recipient.to);
  if (!address.ok) return invalid(`${at}.to`, address.reason);
  const first = seen.get(address.address);
  if (first !== undefined)
    return invalid(`${at}.to`, `names ${address.address} again (as recipients[${first}].to)`);
  seen.set(address.address, position);
  const ownProblem = variablesProblem(recipient.variables);
  if (ownProblem !== undefined) return invalid(`${at}.variables`, ownProblem);
  const variables = mergedVariables(request.variables, recipient.variables);
  const missing = template.variables.filter((name) => !Object.hasOwn(variables, name));
  if (missing.length > 0) {
    return { problem: { kind: 'missing', field: `${at}.variables`, reason: `lacks ${missing.join(', ')}` } };
  }
  const blank = template.variables.filter((name) => (variables[name] as string).trim() === '');
  if (blank.length > 0) return invalid(`${at}.variables`, `${blank.join(', ')} must not be blank`);
  const rendered = template.render(variables);
  if (!rendered.ok) {
    return {
      problem: { kind: 'missing', field: `${at}.variables`, reason: `lacks ${rendered.missing.join(', ')}` },
    };
  }
  return { position, address: address.address, variables, content: rendered.content };
}
