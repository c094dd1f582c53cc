import type { Provider as NestProvider, Type } from '@nestjs/common';
import type { Provider } from '@ums/contracts';
import type { ProviderStatusApi } from './provider-adapter';
import { MittoStatusApi } from './mitto.status-api';
import { SimulatorStatusApi } from './simulator.status-api';
import { TwilioStatusApi } from './twilio.status-api';

/** The providers with a status API: list a ProviderStatusApi class here to give its provider one. */
export const STATUS_API_TYPES: readonly Type<ProviderStatusApi>[] = [
  SimulatorStatusApi,
  TwilioStatusApi,
  MittoStatusApi,
];

/** The status APIs by provider; a provider without one (WhatsApp Cloud, SES) has none. */
export class StatusApis {
  private readonly byProvider: ReadonlyMap<Provider, ProviderStatusApi>;

  constructor(apis: readonly ProviderStatusApi[]) {
    this.byProvider = new Map(apis.map((api) => [api.provider, api]));
  }

  of(provider: Provider): ProviderStatusApi | undefined {
    return this.byProvider.get(provider);
  }

  get providers(): Provider[] {
    return [...this.byProvider.keys()];
  }
}

/** Nest providers: every status API class and the StatusApis built from them. */
export const STATUS_API_PROVIDERS: readonly NestProvider[] = [
  ...STATUS_API_TYPES,
  {
    provide: StatusApis,
    useFactory: (...apis: ProviderStatusApi[]) => new StatusApis(apis),
    inject: [...STATUS_API_TYPES],
  },
];
