import type { Channel } from '../enums/channel.enum';
import type { Provider } from '../enums/provider.enum';

/** A credential as the campaign API shows it: never the secret, only whether one is stored. */
export interface CredentialView {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly provider: Provider;
  readonly channel: Channel;
  readonly config: Record<string, string | number | boolean>;
  readonly hasSecret: boolean;
  readonly hasCallbackSecret: boolean;
  readonly hasWebhookVerifyToken: boolean;
  readonly rateCeilingPerSec: number;
  readonly rateFloorPerSec: number;
  readonly tenantRateCapPerSec: number | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface CredentialPage {
  readonly items: CredentialView[];
  /** Pass as `after` for the next page; null on the last page. */
  readonly nextAfter: string | null;
}
