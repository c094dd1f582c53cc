import { Injectable, Logger, type OnModuleInit, Optional, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { AUTH_METADATA, type RouteAuth } from './auth.decorators';
import { PrincipalResolver } from './principal-resolver.service';

/** One route of the service and how it is protected (undefined: not declared). */
export interface DeclaredRoute {
  readonly route: string;
  readonly handler: string;
  readonly auth: RouteAuth | undefined;
}

/**
 * Refuses to start a service with a route that does not say how it is protected (`@Requires`,
 * `@Authenticated` or `@Public`), or with routes needing a principal where none can be resolved (a
 * service without the API module). A route cannot be added unprotected by forgetting.
 */
@Injectable()
export class RouteAuthCheck implements OnModuleInit {
  private readonly logger = new Logger('auth');

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    @Optional() private readonly resolver?: PrincipalResolver,
  ) {}

  onModuleInit(): void {
    const routes = this.routes();
    const undeclared = routes.filter((r) => r.auth === undefined);
    if (undeclared.length > 0) {
      throw new Error(
        `Routes without @Requires(scope), @Authenticated(reason) or @Public(reason): ${undeclared.map((r) => `${r.route} (${r.handler})`).join(', ')}`,
      );
    }
    const guarded = routes.filter((r) => r.auth?.kind !== 'public');
    if (guarded.length > 0 && this.resolver === undefined) {
      throw new Error(
        `Scoped or authenticated routes in a service without API authentication: ${guarded.map((r) => r.route).join(', ')}`,
      );
    }
    const scoped = guarded.filter((r) => r.auth?.kind === 'scope').length;
    // One line naming every route and its protection (its scope, `authenticated` or `public`): what an
    // operator (and the access matrix test) reads.
    this.logger.log(
      { routes: routes.map((r) => `${r.route} ${protectionOf(r.auth)}`) },
      `${routes.length} routes: ${scoped} need a scope, ${guarded.length - scoped} any credential, ${routes.length - guarded.length} public`,
    );
  }

  /** Every route handler of every controller, with its declaration. */
  routes(): DeclaredRoute[] {
    const types = this.discovery
      .getControllers()
      .map((wrapper) => wrapper.metatype)
      .filter((type): type is ControllerType => typeof type === 'function');
    return declaredRoutes(types, this.reflector, this.scanner);
  }
}

/** How the start-up line names a route's protection: its scope, `authenticated` or `public`. */
export function protectionOf(auth: RouteAuth | undefined): string {
  if (auth?.kind === 'scope') return auth.scope;
  return auth?.kind ?? 'undeclared';
}

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- controller classes of any shape
export type ControllerType = Function;

/** The routes of `types` (controller classes) as Nest registers them, with their auth declarations. */
export function declaredRoutes(
  types: readonly ControllerType[],
  reflector: Reflector = new Reflector(),
  scanner: MetadataScanner = new MetadataScanner(),
): DeclaredRoute[] {
  const routes: DeclaredRoute[] = [];
  for (const type of types) {
    const prototype = type.prototype as Record<string, unknown>;
    const base = String(Reflect.getMetadata(PATH_METADATA, type) ?? '');
    for (const name of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[name];
      if (typeof handler !== 'function') continue;
      const path: unknown = Reflect.getMetadata(PATH_METADATA, handler);
      if (path === undefined) continue;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod] ?? 'ALL';
      const joined = [base, String(path)].filter((p) => p !== '' && p !== '/').join('/');
      routes.push({
        route: `${method} /${joined}`.replace(/\/+/g, '/'),
        handler: `${type.name}.${name}`,
        auth: reflector.getAllAndOverride<RouteAuth | undefined>(AUTH_METADATA, [handler, type]),
      });
    }
  }
  return routes;
}
