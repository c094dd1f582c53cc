import { Module } from '@nestjs/common';

/** Placeholder: filled in by the credentials feature. */
@Module({})
export class CredentialsModule {}
