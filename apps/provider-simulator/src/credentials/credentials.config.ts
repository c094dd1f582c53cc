import { Expose } from 'class-transformer';
import { ParseJson, IsCredentialList } from './credential-list.validator';

export class CredentialsConfig {
  /**
   * Credentials configured at start-up: a JSON array of PUT /_sim/credentials bodies, each with its
   * `credentialId` (e.g. `[{"credentialId":"1","provider":"simulator","capacityTps":500}]`).
   * Stored as given; the service builds them with the same rules as the admin API.
   */
  @Expose() @ParseJson() @IsCredentialList() SIMULATOR_CREDENTIALS: unknown[] = [];
}
