import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import { Public } from '../auth/auth.decorators';
import type { FastifyReply } from 'fastify';
import { HealthRegistry, type HealthCheckResult } from './health-registry';

@Public('probes: liveness and readiness say nothing about tenants')
@Controller('health')
export class HealthController {
  constructor(private readonly registry: HealthRegistry) {}

  /** The process answers: Kubernetes restarts it when this fails. */
  @Get('live')
  @HttpCode(200)
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Dependencies reachable and consumers running: traffic and rollouts wait for this. */
  @Get('ready')
  async ready(
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ status: 'ok' | 'unavailable'; checks: Record<string, HealthCheckResult> }> {
    const { ok, checks } = await this.registry.evaluate();
    void reply.status(ok ? 200 : 503);
    return { status: ok ? 'ok' : 'unavailable', checks };
  }
}
