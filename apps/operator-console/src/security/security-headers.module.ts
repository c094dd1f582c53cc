import { Module } from '@nestjs/common';
import { SecurityHeadersService } from './security-headers.service';

/** The console's security headers (CSP, no framing, no referrer, no sniffing) on every answer. */
@Module({ providers: [SecurityHeadersService] })
export class SecurityHeadersModule {}
