/** Bounds of a credential's fields, shared by the create and update DTOs. */
export const CredentialLimits = {
  nameMaxLength: 255,
  tenantIdMaxLength: 64,
  secretMaxLength: 4096,
  verifyTokenMaxLength: 256,
  maxRatePerSec: 100_000,
} as const;

/** Tenant ids are ours to compare and log: printable, no spaces. */
export const TENANT_ID_PATTERN = /^[A-Za-z0-9._:-]+$/;
