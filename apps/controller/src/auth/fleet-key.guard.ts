import { CanActivate, ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import { bearerToken } from './bearer-token.js';
import { assertGroupAllowed, type FleetRequest } from './fleet-principal.js';
import { FleetKeysService } from './fleet-keys.service.js';

/**
 * Fleet endpoints: 401 without a known fleet key; 403 when the group named in the body or in
 * ?group= is not one of the key's groups. Attaches the principal for @Fleet().
 */
@Injectable()
export class FleetKeyGuard implements CanActivate {
  constructor(private readonly fleetKeys: FleetKeysService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FleetRequest>();
    const token = bearerToken(request.headers.authorization);
    if (!token) throw new UnauthorizedException('missing fleet key (Authorization: Bearer <key>)');
    const principal = await this.fleetKeys.authenticate(token);
    if (!principal) throw new UnauthorizedException('fleet key is not valid');
    request.fleetPrincipal = principal;
    for (const group of [groupOf(request.body), groupOf(request.query)]) {
      if (group !== null) assertGroupAllowed(principal, group);
    }
    return true;
  }
}

function groupOf(source: unknown): string | null {
  if (!source || typeof source !== 'object') return null;
  const group = (source as { group?: unknown }).group;
  return typeof group === 'string' && group !== '' ? group : null; // an empty group is a validation error (400)
}
