import { Body, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { Scope } from '@ums/contracts';
import { Requires } from '@ums/platform';
import { CreateCredentialDto } from './create-credential.dto';
import type { CredentialPage, CredentialView } from './credential.view';
import { CredentialsService } from './credentials.service';
import { ListCredentialsDto } from './list-credentials.dto';
import { UpdateCredentialDto } from './update-credential.dto';

/** Provider accounts. Responses say whether a secret is stored (`hasSecret`), never what it is. */
@Controller('v1/credentials')
export class CredentialsController {
  constructor(private readonly credentials: CredentialsService) {}

  @Requires(Scope.CredentialsWrite)
  @Post()
  create(@Body() dto: CreateCredentialDto): Promise<CredentialView> {
    return this.credentials.create(dto);
  }

  @Requires(Scope.CredentialsRead)
  @Get()
  list(@Query() query: ListCredentialsDto): Promise<CredentialPage> {
    return this.credentials.list(query);
  }

  @Requires(Scope.CredentialsRead)
  @Get(':id')
  get(@Param('id') id: string): Promise<CredentialView> {
    return this.credentials.get(id);
  }

  @Requires(Scope.CredentialsWrite)
  @Patch(':id')
  update(@Param('id') id: string, @Body() dto: UpdateCredentialDto): Promise<CredentialView> {
    return this.credentials.update(id, dto);
  }
}
