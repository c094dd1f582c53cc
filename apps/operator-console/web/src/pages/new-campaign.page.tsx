import { useEffect, useState } from 'preact/hooks';
import type { CredentialView } from '../api/api.types';
import { scheduler } from '../api/console-client';
import type { NewCampaignBody } from '../api/console.api';
import { ErrorAlert } from '../components/error-alert';
import { useResource } from '../hooks/use-resource';
import { useSession } from '../hooks/use-session';
import { type AudienceSource, useCampaignCreation } from '../campaigns/use-campaign-creation';
import { CreationProgress } from './creation-progress';

const CHANNELS = ['sms', 'whatsapp', 'email'] as const;

interface CampaignForm {
  readonly name: string;
  readonly channel: string;
  readonly credentialId: string;
  readonly text: string;
  readonly subject: string;
  readonly defaultCountry: string;
  readonly source: 'csv' | 'url';
  readonly file: File | null;
  readonly url: string;
}

const EMPTY: CampaignForm = {
  name: '',
  channel: 'sms',
  credentialId: '',
  text: '',
  subject: '',
  defaultCountry: '',
  source: 'csv',
  file: null,
  url: '',
};

function bodyOf(form: CampaignForm): NewCampaignBody {
  const country = form.defaultCountry.trim().toUpperCase();
  return {
    name: form.name.trim(),
    channel: form.channel,
    credentialId: form.credentialId,
    template: form.channel === 'email' ? { text: form.text, subject: form.subject } : { text: form.text },
    ...(country === '' ? {} : { defaultCountry: country }),
    schedule: { kind: 'now' },
  };
}

function sourceOf(form: CampaignForm): AudienceSource | null {
  if (form.source === 'csv') return form.file === null ? null : { kind: 'csv', file: form.file };
  return form.url.trim() === '' ? null : { kind: 'url', url: form.url.trim() };
}

/** Creates a campaign and imports its audience from a CSV upload or a URL. */
export function NewCampaignPage() {
  const session = useSession();
  const credentials = useResource(() => scheduler.credentials(), []);
  const [form, setForm] = useState<CampaignForm>(EMPTY);
  const creation = useCampaignCreation();
  const set = (patch: Partial<CampaignForm>): void => setForm((current) => ({ ...current, ...patch }));
  const tenant = session.actingTenant;
  useDefaultChannel(credentials.data?.items, form, set);
  const usable = (credentials.data?.items ?? []).filter(
    (c) => c.channel === form.channel && (tenant === null || c.tenantId === tenant),
  );
  const busy = ['creating', 'uploading', 'importing'].includes(creation.step.kind);
  const locked = creation.created !== null;
  const source = sourceOf(form);
  return (
    <section class="page" aria-labelledby="new-campaign-heading">
      <h1 id="new-campaign-heading">New campaign</h1>
      {session.isOperator && tenant === null ? (
        <p class="alert alert-info">
          You are signed in as the operator: fill in Act for tenant (at the top) with the tenant the campaign
          is for.
        </p>
      ) : null}
      <form
        class="form form-wide"
        onSubmit={(event) => {
          event.preventDefault();
          if (source !== null && !busy) void creation.submit(bodyOf(form), source);
        }}
      >
        <fieldset disabled={locked || busy}>
          <legend>Campaign</legend>
          <CampaignFields form={form} set={set} credentials={usable} />
          <MessageFields form={form} set={set} />
        </fieldset>
        <ErrorAlert error={credentials.error} context="Credentials could not be loaded" />
        <fieldset disabled={busy}>
          <legend>Audience</legend>
          <AudienceFields form={form} set={set} />
        </fieldset>
        <button type="submit" class="button button-primary" disabled={busy || source === null}>
          {locked ? 'Import audience' : 'Create campaign'}
        </button>
      </form>
      <CreationProgress step={creation.step} campaign={creation.created} />
    </section>
  );
}

/** Until a channel is picked, the form starts on the channel of the first credential there is. */
function useDefaultChannel(
  credentials: readonly CredentialView[] | undefined,
  form: CampaignForm,
  set: (patch: Partial<CampaignForm>) => void,
): void {
  const [applied, setApplied] = useState(false);
  useEffect(() => {
    if (applied || credentials === undefined) return;
    setApplied(true);
    const first = credentials[0];
    if (
      form.credentialId === '' &&
      first !== undefined &&
      !credentials.some((c) => c.channel === form.channel)
    ) {
      set({ channel: first.channel });
    }
  }, [applied, credentials, form, set]);
}

interface FieldsProps {
  readonly form: CampaignForm;
  readonly set: (patch: Partial<CampaignForm>) => void;
}

function CampaignFields({
  form,
  set,
  credentials,
}: FieldsProps & { credentials: readonly CredentialView[] }) {
  return (
    <>
      <div class="field">
        <label for="campaign-name">Name</label>
        <input
          id="campaign-name"
          required
          maxLength={255}
          value={form.name}
          onInput={(e) => set({ name: e.currentTarget.value })}
        />
      </div>
      <div class="field">
        <label for="campaign-channel">Channel</label>
        <select
          id="campaign-channel"
          value={form.channel}
          onChange={(e) => set({ channel: e.currentTarget.value, credentialId: '' })}
        >
          {CHANNELS.map((channel) => (
            <option key={channel} value={channel}>
              {channel}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="campaign-credential">Credential</label>
        <select
          id="campaign-credential"
          required
          value={form.credentialId}
          onChange={(e) => set({ credentialId: e.currentTarget.value })}
        >
          <option value="">{credentials.length === 0 ? 'No credential for this channel' : 'Choose…'}</option>
          {credentials.map((credential) => (
            <option key={credential.id} value={credential.id}>
              {credential.name} ({credential.provider}, {credential.id})
            </option>
          ))}
        </select>
      </div>
    </>
  );
}

function MessageFields({ form, set }: FieldsProps) {
  return (
    <>
      {form.channel === 'email' ? (
        <div class="field">
          <label for="campaign-subject">Subject</label>
          <input
            id="campaign-subject"
            required
            value={form.subject}
            onInput={(e) => set({ subject: e.currentTarget.value })}
          />
        </div>
      ) : null}
      <div class="field">
        <label for="campaign-text">Message text</label>
        <textarea
          id="campaign-text"
          required
          rows={4}
          maxLength={4096}
          aria-describedby="campaign-text-hint"
          value={form.text}
          onInput={(e) => set({ text: e.currentTarget.value })}
        />
        <p id="campaign-text-hint" class="hint">
          {'{{first_name}}'} takes the CSV column first_name of each recipient.
        </p>
      </div>
      <div class="field field-short">
        <label for="campaign-country">Default country</label>
        <input
          id="campaign-country"
          maxLength={2}
          pattern="[A-Za-z]{2}"
          aria-describedby="campaign-country-hint"
          value={form.defaultCountry}
          onInput={(e) => set({ defaultCountry: e.currentTarget.value })}
        />
        <p id="campaign-country-hint" class="hint">
          Two letters (DE, US): numbers without a country code are read as this country's.
        </p>
      </div>
    </>
  );
}

function AudienceFields({ form, set }: FieldsProps) {
  return (
    <>
      <div class="radios" role="radiogroup" aria-label="Audience from">
        <label>
          <input
            type="radio"
            name="audience-source"
            checked={form.source === 'csv'}
            onChange={() => set({ source: 'csv' })}
          />{' '}
          CSV file
        </label>
        <label>
          <input
            type="radio"
            name="audience-source"
            checked={form.source === 'url'}
            onChange={() => set({ source: 'url' })}
          />{' '}
          URL
        </label>
      </div>
      {form.source === 'csv' ? (
        <div class="field">
          <label for="audience-file">CSV file</label>
          <input
            id="audience-file"
            type="file"
            accept=".csv,text/csv"
            aria-describedby="audience-file-hint"
            onChange={(e) => set({ file: e.currentTarget.files?.[0] ?? null })}
          />
          <p id="audience-file-hint" class="hint">
            A header row with a phone (or email) column; other columns are the message's variables.
          </p>
        </div>
      ) : (
        <div class="field">
          <label for="audience-url">Audience URL</label>
          <input
            id="audience-url"
            type="url"
            placeholder="https://example.com/audience.csv"
            value={form.url}
            onInput={(e) => set({ url: e.currentTarget.value })}
          />
        </div>
      )}
    </>
  );
}
