import { FailureReason, Provider } from '@ums/contracts';
import { mittoItemRule } from '../provider-outcome/mitto-outcome';
import { simulatorItemRule } from '../provider-outcome/simulator-outcome';
import { twilioErrorRule } from '../provider-outcome/twilio-outcome';
import { whatsAppErrorRule } from '../provider-outcome/whatsapp-cloud-outcome';

/**
 * Our reason for a provider's failure code in a status callback, from the same tables that
 * classify send answers; a code we do not know is `other` (the code itself is kept on the row).
 */
export function callbackFailureReason(provider: Provider, code: string | undefined): FailureReason {
  if (code === undefined || code === '') return FailureReason.Other;
  switch (provider) {
    case Provider.WhatsAppCloud:
      return whatsAppErrorRule(code)?.reason ?? FailureReason.Other;
    case Provider.Twilio:
      return twilioErrorRule(code)?.reason ?? FailureReason.Other;
    case Provider.Mitto:
      return mittoItemRule(code).reason;
    case Provider.Simulator:
      return simulatorItemRule(code, false).reason;
    case Provider.Ses:
      // A bounce subtype we do not list falls back to its type (Permanent, Transient).
      return (
        SES_BOUNCE_REASONS.get(code) ??
        SES_BOUNCE_REASONS.get(code.split('/')[0] ?? '') ??
        FailureReason.Other
      );
  }
}

// SES event publishing: bounce types and complaint feedback as codes.
const SES_BOUNCE_REASONS = new Map<string, FailureReason>([
  ['Permanent', FailureReason.InvalidRecipient],
  ['Permanent/General', FailureReason.InvalidRecipient],
  ['Permanent/NoEmail', FailureReason.InvalidRecipient],
  ['Permanent/Suppressed', FailureReason.Blocked],
  ['Permanent/OnAccountSuppressionList', FailureReason.Blocked],
  ['Transient', FailureReason.ProviderError],
  ['Complaint', FailureReason.OptedOut],
]);
