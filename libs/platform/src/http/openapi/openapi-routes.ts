import { RequestMethod } from '@nestjs/common';
import {
  HTTP_CODE_METADATA,
  INTERCEPTORS_METADATA,
  METHOD_METADATA,
  PATH_METADATA,
  ROUTE_ARGS_METADATA,
} from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { AUTH_METADATA, type RouteAuth } from '../../auth/auth.decorators';
import type { ControllerType } from '../../auth/route-auth.check';
import { IdempotencyInterceptor } from '../idempotency.interceptor';
import {
  API_ANSWER_METADATA,
  API_ERRORS_METADATA,
  API_UPLOAD_METADATA,
  type ApiAnswerSpec,
  type ApiErrorMap,
  type ApiUploadSpec,
} from './openapi.decorators';

/** What a handler binds from the request: a whole DTO (`@Query() dto`) or one named value (`@Param('id')`). */
export interface BoundInput {
  readonly source: 'body' | 'query' | 'path' | 'header';
  /** The named value, or undefined for the whole body, query or path as one DTO. */
  readonly name: string | undefined;
  /** The parameter's declared type (design:paramtypes): a DTO class, String, ... */
  readonly type: unknown;
}

/** One HTTP route of the application, as the OpenAPI post-processing reads it. */
export interface DocumentedRoute {
  /** As in the document: `<Controller without "Controller">_<method>`. */
  readonly operationId: string;
  readonly auth: RouteAuth | undefined;
  readonly inputs: readonly BoundInput[];
  readonly answer: ApiAnswerSpec | undefined;
  readonly upload: ApiUploadSpec | undefined;
  readonly errors: ApiErrorMap;
  /** The success status Nest answers with (`@HttpCode`, else 201 for POST and 200 otherwise). */
  readonly status: number;
  /** Takes an `Idempotency-Key` header (`@Idempotent()`). */
  readonly idempotent: boolean;
}

const SOURCES: Partial<Record<RouteParamtypes, BoundInput['source']>> = {
  [RouteParamtypes.BODY]: 'body',
  [RouteParamtypes.QUERY]: 'query',
  [RouteParamtypes.PARAM]: 'path',
  [RouteParamtypes.HEADERS]: 'header',
};

/** The operation id of a handler: the same factory is given to SwaggerModule.createDocument. */
export function operationIdOf(controllerKey: string, methodKey: string): string {
  return `${controllerKey.replace(/Controller$/, '')}_${methodKey}`;
}

/** Every HTTP handler of the application's controllers (Kafka handlers have no path and are left out). */
export function documentedRoutes(app: INestApplicationContext): DocumentedRoute[] {
  const reflector = new Reflector();
  const scanner = new MetadataScanner();
  const routes: DocumentedRoute[] = [];
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const type = wrapper.metatype;
      if (typeof type !== 'function') continue;
      const prototype = type.prototype as Record<string, unknown>;
      for (const name of scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name];
        if (typeof handler !== 'function' || Reflect.getMetadata(PATH_METADATA, handler) === undefined)
          continue;
        routes.push(describeRoute(type, name, handler as Handler, reflector));
      }
    }
  }
  return routes;
}

/** A route handler: a controller's method. */
type Handler = (...args: never[]) => unknown;

function describeRoute(
  type: ControllerType,
  name: string,
  handler: Handler,
  reflector: Reflector,
): DocumentedRoute {
  const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod;
  const interceptors = (Reflect.getMetadata(INTERCEPTORS_METADATA, handler) ?? []) as unknown[];
  return {
    operationId: operationIdOf(type.name, name),
    auth: reflector.getAllAndOverride<RouteAuth | undefined>(AUTH_METADATA, [handler, type]),
    inputs: boundInputs(type, name),
    answer: Reflect.getMetadata(API_ANSWER_METADATA, handler) as ApiAnswerSpec | undefined,
    upload: Reflect.getMetadata(API_UPLOAD_METADATA, handler) as ApiUploadSpec | undefined,
    errors: (Reflect.getMetadata(API_ERRORS_METADATA, handler) ?? {}) as ApiErrorMap,
    status:
      (Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined) ??
      (method === RequestMethod.POST ? 201 : 200),
    idempotent: interceptors.includes(IdempotencyInterceptor),
  };
}

function boundInputs(type: ControllerType, name: string): BoundInput[] {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, type, name) ?? {}) as Record<
    string,
    { readonly index: number; readonly data?: unknown }
  >;
  const types = (Reflect.getMetadata('design:paramtypes', type.prototype as object, name) ?? []) as unknown[];
  const inputs: BoundInput[] = [];
  for (const [key, arg] of Object.entries(args)) {
    const [paramtype] = key.split(':');
    const source = SOURCES[Number(paramtype) as RouteParamtypes];
    if (source === undefined || key.includes('__customRouteArgs__')) continue;
    inputs.push({
      source,
      name: typeof arg.data === 'string' ? arg.data : undefined,
      type: types[arg.index],
    });
  }
  return inputs;
}
