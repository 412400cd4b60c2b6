import { createParamDecorator, ExecutionContext, ForbiddenException } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/** Who is calling with a fleet key, and which groups it may speak for. */
export interface FleetPrincipal {
  keyId: string;
  groups: readonly string[];
}

export type FleetRequest = FastifyRequest & { fleetPrincipal?: FleetPrincipal };

/** The principal FleetKeyGuard attached to the request. */
export const Fleet = createParamDecorator((_data: unknown, ctx: ExecutionContext): FleetPrincipal => {
  const principal = ctx.switchToHttp().getRequest<FleetRequest>().fleetPrincipal;
  if (!principal) throw new Error('@Fleet() used on a route without FleetKeyGuard');
  return principal;
});

export function assertGroupAllowed(principal: FleetPrincipal, group: string): void {
  if (!principal.groups.includes(group)) {
    throw new ForbiddenException(`group "${group}" is outside this fleet key's groups`);
  }
}
