import type { FieldError } from '@ums/platform';

export interface CredentialRates {
  readonly rateCeilingPerSec: number;
  readonly rateFloorPerSec: number;
}

/** Cross-field rule of the rates (each one's own range is checked by the DTO): floor <= ceiling. */
export function rateProblems(rates: CredentialRates): FieldError[] {
  return rates.rateFloorPerSec > rates.rateCeilingPerSec
    ? [
        {
          field: 'rateFloorPerSec',
          reason: `rateFloorPerSec (${rates.rateFloorPerSec}) must not exceed rateCeilingPerSec (${rates.rateCeilingPerSec})`,
        },
      ]
    : [];
}
