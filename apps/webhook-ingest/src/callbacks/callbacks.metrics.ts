import { Injectable } from '@nestjs/common';
import { type InFlightBytes, MetricsRegistry } from '@ums/platform';
import { Counter, Gauge, Histogram } from 'prom-client';

export type CallbackResult =
  'accepted' | 'bad_signature' | 'malformed' | 'unknown_credential' | 'foreign_account' | 'unavailable';

@Injectable()
export class CallbacksMetrics {
  readonly callbacks: Counter<'provider' | 'result'>;
  readonly events: Counter<'provider' | 'kind'>;
  readonly seconds: Histogram<'provider'>;
  readonly foreignAccounts: Counter<'provider'>;
  readonly inFlightRefusals: Counter;
  readonly inFlightBytes: Gauge;
  private inFlight: InFlightBytes | undefined;

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.callbacks = new Counter({
      name: 'ums_ingest_callbacks_total',
      help: 'Provider callback posts, by provider and result (accepted means published to Kafka, then answered 2xx)',
      labelNames: ['provider', 'result'],
      registers,
    });
    this.events = new Counter({
      name: 'ums_ingest_events_total',
      help: 'Provider events published, by kind (status, inbound, ignored: valid items that carry nothing for us)',
      labelNames: ['provider', 'kind'],
      registers,
    });
    this.seconds = new Histogram({
      name: 'ums_ingest_callback_seconds',
      help: 'Time from a callback body read to its events acknowledged by Kafka',
      labelNames: ['provider'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
    this.foreignAccounts = new Counter({
      name: 'ums_ingest_foreign_account_total',
      help: "Callback items naming another provider account than the credential's, not published (WhatsApp changes of another phone_number_id, ignored; Twilio posts of another AccountSid, refused)",
      labelNames: ['provider'],
      registers,
    });
    this.inFlightRefusals = new Counter({
      name: 'ums_ingest_in_flight_refusals_total',
      help: 'Callbacks answered 503 unread because the bodies in flight would pass INGEST_MAX_INFLIGHT_BYTES',
      registers,
    });
    const tracked = (): InFlightBytes | undefined => this.inFlight;
    this.inFlightBytes = new Gauge({
      name: 'ums_ingest_in_flight_bytes',
      help: 'Callback body bytes held by requests being read or handled (bounded by INGEST_MAX_INFLIGHT_BYTES)',
      registers,
      collect() {
        this.set(tracked()?.inUse ?? 0);
      },
    });
  }

  /** The budget ums_ingest_in_flight_bytes reports. */
  track(inFlight: InFlightBytes): void {
    this.inFlight = inFlight;
  }
}
