import { Controller, Get, Post } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { Scope } from '@ums/contracts';
import { Authenticated, Public, Requires } from './auth.decorators';
import type { PrincipalResolver } from './principal-resolver.service';
import { declaredRoutes, protectionOf, RouteAuthCheck } from './route-auth.check';

@Controller('v1/things')
class DeclaredController {
  @Requires(Scope.CampaignsRead)
  @Get(':id')
  read(): string {
    return 'x';
  }

  @Public('a probe')
  @Post('ping')
  ping(): string {
    return 'x';
  }

  @Authenticated('answers only what the credential says of itself')
  @Get('mine/self')
  self(): string {
    return 'x';
  }

  helper(): string {
    return 'x';
  }
}

@Requires(Scope.CampaignsWrite)
@Controller('v1/scoped')
class ClassScopedController {
  @Post()
  create(): string {
    return 'x';
  }
}

@Controller('v1/forgotten')
class ForgottenController {
  @Requires(Scope.CampaignsRead)
  @Get()
  list(): string {
    return 'x';
  }

  @Post(':id')
  change(): string {
    return 'x';
  }
}

function check(types: unknown[], resolver: PrincipalResolver | undefined): RouteAuthCheck {
  const discovery = {
    getControllers: () => types.map((metatype) => ({ metatype })),
  } as unknown as DiscoveryService;
  return new RouteAuthCheck(discovery, new MetadataScanner(), new Reflector(), resolver);
}

describe('route auth declarations', () => {
  it('lists every route with its declaration, a class-level one included', () => {
    expect(declaredRoutes([DeclaredController, ClassScopedController])).toEqual([
      {
        route: 'GET /v1/things/:id',
        handler: 'DeclaredController.read',
        auth: { kind: 'scope', scope: Scope.CampaignsRead },
      },
      {
        route: 'POST /v1/things/ping',
        handler: 'DeclaredController.ping',
        auth: { kind: 'public', reason: 'a probe' },
      },
      {
        route: 'GET /v1/things/mine/self',
        handler: 'DeclaredController.self',
        auth: { kind: 'authenticated', reason: 'answers only what the credential says of itself' },
      },
      {
        route: 'POST /v1/scoped',
        handler: 'ClassScopedController.create',
        auth: { kind: 'scope', scope: Scope.CampaignsWrite },
      },
    ]);
  });

  it('refuses to start with a route that declares nothing, naming it', () => {
    const resolver = {} as PrincipalResolver;
    expect(() => check([DeclaredController, ForgottenController], resolver).onModuleInit()).toThrow(
      'Routes without @Requires(scope), @Authenticated(reason) or @Public(reason): POST /v1/forgotten/:id (ForgottenController.change)',
    );
    expect(() => check([DeclaredController, ClassScopedController], resolver).onModuleInit()).not.toThrow();
  });

  it('refuses scoped and authenticated routes in a service that cannot resolve principals', () => {
    expect(() => check([DeclaredController], undefined).onModuleInit()).toThrow(
      /without API authentication: GET \/v1\/things\/:id, GET \/v1\/things\/mine\/self$/,
    );
  });

  it('names each route by its scope, `authenticated` or `public`', () => {
    expect(declaredRoutes([DeclaredController]).map((r) => protectionOf(r.auth))).toEqual([
      Scope.CampaignsRead,
      'public',
      'authenticated',
    ]);
  });
});
