import type { FieldIssue } from '@ums/contracts';
import { isRecord } from '@ums/domain';

/** A WhatsApp webhook with the changes of other business numbers taken out. */
export interface BoundWhatsAppBody {
  /** The body with only this number's `messages` changes (the body itself when nothing was taken out). */
  readonly body: unknown;
  /** `messages` changes taken out: their `metadata.phone_number_id` is another number's. */
  readonly foreign: number;
  /** The numbers they named (at most 10). */
  readonly foreignPhoneNumberIds: readonly string[];
  /** `messages` changes that name no number: the callback is refused (Meta always names it). */
  readonly issues: readonly FieldIssue[];
}

const MAX_NAMED = 10;

/**
 * Keeps a WhatsApp webhook to the credential's business number: every `messages` change whose
 * `value.metadata.phone_number_id` is another number's is taken out, so one number's statuses and
 * replies are never published under another credential; a change naming no number is an issue.
 * Changes of other fields and anything malformed stay, for the parser to ignore or refuse.
 */
export function bindWhatsAppBody(body: unknown, phoneNumberId: string): BoundWhatsAppBody {
  const issues: FieldIssue[] = [];
  if (!isRecord(body) || !Array.isArray(body['entry'])) {
    return { body, foreign: 0, foreignPhoneNumberIds: [], issues };
  }
  let foreign = 0;
  const named = new Set<string>();
  const entries = body['entry'].map((entry: unknown, e) => {
    if (!isRecord(entry) || !Array.isArray(entry['changes'])) return entry;
    const changes = entry['changes'].filter((change: unknown, c) => {
      const number = numberOf(change);
      if (number === undefined || number === phoneNumberId) return true;
      if (number === '') {
        const field = `entry[${e}].changes[${c}].value.metadata.phone_number_id`;
        issues.push({ field, reason: 'must name the business phone number' });
        return true;
      }
      foreign += 1;
      if (named.size < MAX_NAMED) named.add(number.slice(0, 64));
      return false;
    });
    return changes.length === entry['changes'].length ? entry : { ...entry, changes };
  });
  if (foreign === 0) return { body, foreign: 0, foreignPhoneNumberIds: [], issues };
  return { body: { ...body, entry: entries }, foreign, foreignPhoneNumberIds: [...named], issues };
}

/**
 * The number a well-formed `messages` change names ('' when it names none); undefined for other
 * changes and malformed ones.
 */
function numberOf(change: unknown): string | undefined {
  if (!isRecord(change) || change['field'] !== 'messages' || !isRecord(change['value'])) return undefined;
  const metadata = change['value']['metadata'];
  const raw = isRecord(metadata) ? metadata['phone_number_id'] : undefined;
  const number = typeof raw === 'number' && Number.isSafeInteger(raw) ? String(raw) : raw;
  return typeof number === 'string' ? number : '';
}

/** Twilio's AccountSid of a form (the first, should it repeat). */
export function twilioAccountSid(params: readonly (readonly [string, string])[]): string | undefined {
  return params.find(([name]) => name === 'AccountSid')?.[1];
}
