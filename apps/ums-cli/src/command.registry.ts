import { AUDIT_COMMANDS, KEY_COMMANDS } from './access.commands';
import { CAMPAIGN_COMMANDS } from './campaign.commands';
import type { CommandSpec } from './command.types';
import { CAMPAIGN_LIST_COMMANDS, CONTACT_LIST_COMMANDS } from './contact-list.commands';
import { CREDENTIAL_COMMANDS } from './credential.commands';
import { CREDIT_COMMANDS } from './credit-ledger.commands';
import { DEAD_LETTER_COMMANDS } from './dead-letter.commands';
import { OPT_OUT_COMMANDS } from './opt-out.commands';
import { RUN_COMMANDS } from './run.commands';
import { TEST_SEND_COMMANDS } from './test-send.commands';
import { DLQ_COMMANDS, SUBSCRIBER_COMMANDS } from './subscriber.commands';

/** Every command, grouped as `ums <group> <command>`, in the order help lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  ...CAMPAIGN_COMMANDS,
  ...CAMPAIGN_LIST_COMMANDS,
  ...TEST_SEND_COMMANDS,
  ...RUN_COMMANDS,
  ...SUBSCRIBER_COMMANDS,
  ...DLQ_COMMANDS,
  ...DEAD_LETTER_COMMANDS,
  ...OPT_OUT_COMMANDS,
  ...CONTACT_LIST_COMMANDS,
  ...CREDENTIAL_COMMANDS,
  ...CREDIT_COMMANDS,
  ...KEY_COMMANDS,
  ...AUDIT_COMMANDS,
];

export const GROUP_SUMMARIES: Readonly<Record<string, string>> = {
  campaigns: 'campaigns, their audience upload and lifecycle (campaign API)',
  runs: 'runs of a campaign: progress, pause/resume/stop, retries, messages (campaign API)',
  subscribers: 'webhook subscribers: list, show, resurrect, deliveries (dispatcher API)',
  dlq: 'dead-lettered webhook deliveries: list and replay (dispatcher API)',
  'dead-letters': 'Kafka messages consumers refused or gave up on: list, show, replay (campaign API)',
  'opt-outs': 'opted-out addresses per channel: list, add, remove, CSV import and export (campaign API)',
  lists: 'reusable contact lists: create, show, import members (CSV or URL), members (campaign API)',
  credentials: 'provider credentials (campaign API)',
  credits: "a tenant's credits: balances, ledger; the operator's top-ups, prices and quotas (campaign API)",
  keys: 'API keys: create (shown once), list, show, revoke (campaign API)',
  audit: 'the audit trail of state-changing calls (campaign API)',
};

export function commandsOf(group: string): CommandSpec[] {
  return COMMANDS.filter((c) => c.group === group);
}
