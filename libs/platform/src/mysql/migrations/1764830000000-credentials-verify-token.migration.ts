import type { MigrationInterface, QueryRunner } from 'typeorm';

/*
 * credentials.verify_token_ciphertext: Meta's `hub.verify_token` for a whatsapp-cloud credential's
 * subscription challenge, sealed like the other secrets (SecretBox) and set through the credentials
 * API (`webhookVerifyToken`, write-only). It used to sit in clear in `config.webhookVerifyToken`;
 * sealing needs the service's keys, which SQL does not have, so existing values are not moved here:
 * webhook-ingest reads `config.webhookVerifyToken` while this column is NULL, and setting the token
 * through the API seals it here and drops the plain copy. Nullable and last, so MariaDB 10.11 and
 * MySQL 8 add it without a table rebuild.
 */
export class CredentialsVerifyToken1764830000000 implements MigrationInterface {
  name = 'CredentialsVerifyToken1764830000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE `credentials` ADD COLUMN `verify_token_ciphertext` TEXT NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE `credentials` DROP COLUMN `verify_token_ciphertext`');
  }
}
