import { Controller, Get } from '@nestjs/common';
import { OPERATOR_SCOPES, WHOAMI_VIEW, type WhoamiView } from '@ums/contracts';
import { ApiAnswer, Authenticated, Caller, type Principal } from '@ums/platform';

/** Who the caller is, as the API sees its credential: what a console shows after signing in. */
@Controller('v1/whoami')
export class WhoamiController {
  @Authenticated("it answers only what the caller's own credential says, never a secret")
  @ApiAnswer(WHOAMI_VIEW)
  @Get()
  get(@Caller() principal: Principal): WhoamiView {
    return {
      kind: principal.kind,
      id: principal.id,
      tenantId: principal.tenantId,
      scopes: OPERATOR_SCOPES.filter((scope) => principal.scopes.has(scope)),
    };
  }
}
