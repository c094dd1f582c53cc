import { Public } from '@ums/platform';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Put, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CredentialChangesDto, CredentialSettingsDto } from './credential-settings.dto';
import { CredentialsService } from './credentials.service';
import { credentialView } from './simulated-credential';

/** Admin API of the simulated accounts (tests and the demo configure them here). */
@Public('the provider simulator is a test tool; deployments that run it keep it off public networks')
@Controller('_sim/credentials')
export class CredentialsController {
  constructor(private readonly credentials: CredentialsService) {}

  @Get()
  list(): { credentials: Record<string, unknown>[] } {
    return { credentials: this.credentials.list().map(credentialView) };
  }

  @Put(':credentialId')
  put(
    @Param('credentialId') id: string,
    @Body() settings: CredentialSettingsDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Record<string, unknown> {
    const { credential, created } = this.credentials.put(id, settings);
    void reply.status(created ? 201 : 200);
    return credentialView(credential);
  }

  @Get(':credentialId')
  get(@Param('credentialId') id: string): Record<string, unknown> {
    return credentialView(this.credentials.get(id));
  }

  @Patch(':credentialId')
  update(@Param('credentialId') id: string, @Body() changes: CredentialChangesDto): Record<string, unknown> {
    return credentialView(this.credentials.update(id, changes));
  }

  @Delete(':credentialId')
  @HttpCode(204)
  remove(@Param('credentialId') id: string): void {
    this.credentials.remove(id);
  }
}
