import type { MigrationInterface, QueryRunner } from 'typeorm';

/*
 * credentials.callback_secret_ciphertext: what webhook-ingest verifies a provider's callbacks with,
 * sealed like secret_ciphertext (SecretBox): the Meta app secret, the Mitto shared token, the
 * simulator's HMAC secret; for Twilio, when NULL, the auth token in secret_ciphertext (Twilio signs
 * with it). Nullable and last, so both MariaDB 10.11 and MySQL 8 add it without a table rebuild.
 */
export class CredentialsCallbackSecret1764200000000 implements MigrationInterface {
  name = 'CredentialsCallbackSecret1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE `credentials` ADD COLUMN `callback_secret_ciphertext` TEXT NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE `credentials` DROP COLUMN `callback_secret_ciphertext`');
  }
}
