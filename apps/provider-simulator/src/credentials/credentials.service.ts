import { Injectable } from '@nestjs/common';
import { CredentialErrorCode, Provider } from '@ums/contracts';
import { ConflictError, InvalidInputError, NotFoundError } from '@ums/platform';
import { plainToInstance } from 'class-transformer';
import {
  CREDENTIAL_ID_PATTERN,
  type CredentialChangesDto,
  CredentialEntryDto,
  type CredentialSettingsDto,
} from './credential-settings.dto';
import { CredentialsConfig } from './credentials.config';
import { applyCredentialChanges, type SimulatedCredential } from './simulated-credential';
import { SimulatorErrorCode } from './simulator-error-code.enum';

type RemovedListener = (credentialId: string) => void;

/**
 * The simulated provider accounts, in memory, with the lookups the provider routes need: a
 * request names its account the provider's way (phone number id, AccountSid, sender), and the
 * lookup maps it to our credential id. Changes take effect on the next request.
 */
@Injectable()
export class CredentialsService {
  private readonly byId = new Map<string, SimulatedCredential>();
  private byPhoneNumberId = new Map<string, SimulatedCredential>();
  private byAccountSid = new Map<string, SimulatedCredential[]>();
  private bySender = new Map<string, SimulatedCredential[]>();
  private readonly removedListeners: RemovedListener[] = [];

  constructor(config: CredentialsConfig) {
    for (const plain of config.SIMULATOR_CREDENTIALS) {
      const entry = plainToInstance(CredentialEntryDto, plain);
      this.put(entry.credentialId, entry);
    }
  }

  /** Creates or replaces a credential; statistics of a replaced one are kept. */
  put(id: string, settings: CredentialSettingsDto): { credential: SimulatedCredential; created: boolean } {
    checkId(id);
    const created = !this.byId.has(id);
    this.store(this.build(id, settings.provider, settings, undefined));
    return { credential: this.get(id), created };
  }

  /** Changes some settings (capacity at run time, error rates...); nested objects merge. */
  update(id: string, changes: CredentialChangesDto): SimulatedCredential {
    const current = this.get(id);
    this.store(this.build(id, current.provider, changes, current));
    return this.get(id);
  }

  get(id: string): SimulatedCredential {
    const credential = this.byId.get(id);
    if (credential === undefined)
      throw new NotFoundError(CredentialErrorCode.NotFound, `No simulated credential ${id}`);
    return credential;
  }

  find(id: string): SimulatedCredential | undefined {
    return this.byId.get(id);
  }

  list(): SimulatedCredential[] {
    return [...this.byId.values()];
  }

  remove(id: string): void {
    this.get(id);
    this.byId.delete(id);
    this.reindex();
    for (const listener of this.removedListeners) listener(id);
  }

  /** Statistics and pending callbacks follow a credential's removal. */
  onRemoved(listener: RemovedListener): void {
    this.removedListeners.push(listener);
  }

  whatsApp(phoneNumberId: string): SimulatedCredential | undefined {
    return this.byPhoneNumberId.get(phoneNumberId);
  }

  /** Twilio: by AccountSid, then the one configured for this sender, else the one with no sender. */
  /** Twilio: every credential of one account (status lookups read the whole account). */
  twilioAccount(accountSid: string): readonly SimulatedCredential[] {
    return this.byAccountSid.get(accountSid) ?? [];
  }

  twilio(accountSid: string, from: string | undefined): SimulatedCredential | undefined {
    return pick(
      this.byAccountSid.get(accountSid),
      (c) => c.account.from === from,
      (c) => c.account.from === undefined,
    );
  }

  /** SES: by FromEmailAddress (case-insensitive), then the region of the signature's scope. */
  ses(fromAddress: string, region: string | undefined): SimulatedCredential | undefined {
    return pick(
      this.bySender.get(senderKey(Provider.Ses, fromAddress.toLowerCase())),
      (c) => c.account.region === region,
      (c) => c.account.region === undefined,
    );
  }

  /** Mitto: by sender, then the one whose API key was presented. */
  mitto(from: string, apiKey: string | undefined): SimulatedCredential | undefined {
    return pick(
      this.bySender.get(senderKey(Provider.Mitto, from)),
      (c) => c.secret === apiKey,
      (c) => c.secret === undefined,
    );
  }

  private build(
    id: string,
    provider: Provider,
    changes: CredentialChangesDto,
    base: SimulatedCredential | undefined,
  ): SimulatedCredential {
    const { credential, problems } = applyCredentialChanges(id, provider, changes, base, new Date());
    if (problems.length > 0) {
      throw new InvalidInputError<SimulatorErrorCode>(
        SimulatorErrorCode.InvalidCredential,
        problems.map((p) => `${p.field}: ${p.reason}`).join('; '),
        problems,
      );
    }
    return credential;
  }

  private store(credential: SimulatedCredential): void {
    const clash = this.list().find((other) => other.id !== credential.id && sameRoute(other, credential));
    if (clash !== undefined) {
      throw new ConflictError<SimulatorErrorCode>(
        SimulatorErrorCode.AccountInUse,
        `Credential ${clash.id} already answers for this ${credential.provider} account`,
      );
    }
    this.byId.set(credential.id, credential);
    this.reindex();
  }

  // Configuration changes are rare; rebuilding every index keeps them trivially consistent.
  private reindex(): void {
    this.byPhoneNumberId = new Map();
    this.byAccountSid = new Map();
    this.bySender = new Map();
    for (const c of this.byId.values()) {
      const { phoneNumberId, accountSid, from } = c.account;
      switch (c.provider) {
        case Provider.WhatsAppCloud:
          if (phoneNumberId !== undefined) this.byPhoneNumberId.set(phoneNumberId, c);
          break;
        case Provider.Twilio:
          if (accountSid !== undefined) push(this.byAccountSid, accountSid, c);
          break;
        case Provider.Ses:
          if (from !== undefined) push(this.bySender, senderKey(c.provider, from.toLowerCase()), c);
          break;
        case Provider.Mitto:
          if (from !== undefined) push(this.bySender, senderKey(c.provider, from), c);
          break;
        case Provider.Simulator:
          break;
      }
    }
  }
}

function checkId(id: string): void {
  if (!CREDENTIAL_ID_PATTERN.test(id)) {
    throw InvalidInputError.field<SimulatorErrorCode>(
      SimulatorErrorCode.InvalidCredentialId,
      'credentialId',
      'must be 1-100 of A-Z a-z 0-9 . _ : -',
    );
  }
}

/** Two credentials a request could not tell apart. */
function sameRoute(a: SimulatedCredential, b: SimulatedCredential): boolean {
  if (a.provider !== b.provider) return false;
  switch (a.provider) {
    case Provider.WhatsAppCloud:
      return a.account.phoneNumberId === b.account.phoneNumberId;
    case Provider.Twilio:
      return a.account.accountSid === b.account.accountSid && a.account.from === b.account.from;
    case Provider.Ses:
      return (
        a.account.from?.toLowerCase() === b.account.from?.toLowerCase() &&
        a.account.region === b.account.region
      );
    case Provider.Mitto:
      return a.account.from === b.account.from && a.secret === b.secret;
    case Provider.Simulator:
      return false;
  }
}

/** The only candidate; or among several, the exact match, else the catch-all (undefined if none). */
function pick(
  candidates: readonly SimulatedCredential[] | undefined,
  exact: (c: SimulatedCredential) => boolean,
  catchAll: (c: SimulatedCredential) => boolean,
): SimulatedCredential | undefined {
  if (candidates === undefined || candidates.length === 0) return undefined;
  if (candidates.length === 1) return candidates[0];
  return candidates.find(exact) ?? candidates.find(catchAll);
}

function senderKey(provider: Provider, from: string): string {
  return `${provider}\n${from}`;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}
