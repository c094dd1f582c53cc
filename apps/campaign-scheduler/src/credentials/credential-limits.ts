/** Bounds of a credential's fields, shared by the create and update DTOs. */
export const CredentialLimits = {
  nameMaxLength: 255,
  secretMaxLength: 4096,
  verifyTokenMaxLength: 256,
  maxRatePerSec: 100_000,
} as const;
