import { InitialSchema1763790000000 } from './1763790000000-initial-schema.migration';
import { MessagesRunRecipientIndex1763834000000 } from './1763834000000-messages-run-recipient-index.migration';
import { ContactsImportId1763900000000 } from './1763900000000-contacts-import-id.migration';
import { CredentialsCallbackSecret1764200000000 } from './1764200000000-credentials-callback-secret.migration';
import { WebhookSubscriberReplay1764300000000 } from './1764300000000-webhook-subscriber-replay.migration';
import { RunCounterDeltas1764400000000 } from './1764400000000-run-counter-deltas.migration';
import { SubscriberBatchSize1764500000000 } from './1764500000000-subscriber-batch-size.migration';
import { DeadLetters1764600000000 } from './1764600000000-dead-letters.migration';
import { DeadLettersReplayedIndex1764700000000 } from './1764700000000-dead-letters-replayed-index.migration';
import { ApiKeysAndAudit1764800000000 } from './1764800000000-api-keys-and-audit.migration';
import { CredentialsVerifyToken1764830000000 } from './1764830000000-credentials-verify-token.migration';
import { DeadLettersTenant1764840000000 } from './1764840000000-dead-letters-tenant.migration';
import { MessagesFixedWidth1764900000000 } from './1764900000000-messages-fixed-width.migration';
import { IdempotencyKeys1765000000000 } from './1765000000000-idempotency-keys.migration';
import { RunEvents1765100000000 } from './1765100000000-run-events.migration';
import { CredentialRateSeconds1765200000000 } from './1765200000000-credential-rate-seconds.migration';
import { CreditsAndSegments1765300000000 } from './1765300000000-credits-and-segments.migration';
import { CampaignPriority1765320000000 } from './1765320000000-campaign-priority.migration';
import { ContactLists1765330000000 } from './1765330000000-contact-lists.migration';
import { TestSends1765340000000 } from './1765340000000-test-sends.migration';
import { StatusRefresh1765350000000 } from './1765350000000-status-refresh.migration';
import { MessagesArchive1765360000000 } from './1765360000000-messages-archive.migration';

/*
 * `messages_archive` is `messages` column for column (names, types, order), then `archived_at`: a
 * migration that adds, changes or drops a column of `messages` must do the same to `messages_archive`
 * (a new column goes before `archived_at`: ADD COLUMN ... AFTER). migrations.int-spec.ts checks it.
 */
/** Every migration in order; append new ones, never edit or remove landed ones. */
export const allMigrations = [
  InitialSchema1763790000000,
  MessagesRunRecipientIndex1763834000000,
  ContactsImportId1763900000000,
  CredentialsCallbackSecret1764200000000,
  WebhookSubscriberReplay1764300000000,
  RunCounterDeltas1764400000000,
  SubscriberBatchSize1764500000000,
  DeadLetters1764600000000,
  DeadLettersReplayedIndex1764700000000,
  ApiKeysAndAudit1764800000000,
  CredentialsVerifyToken1764830000000,
  DeadLettersTenant1764840000000,
  MessagesFixedWidth1764900000000,
  IdempotencyKeys1765000000000,
  RunEvents1765100000000,
  CredentialRateSeconds1765200000000,
  CreditsAndSegments1765300000000,
  CampaignPriority1765320000000,
  ContactLists1765330000000,
  TestSends1765340000000,
  StatusRefresh1765350000000,
  MessagesArchive1765360000000,
];
