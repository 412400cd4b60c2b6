import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash, randomBytes } from 'node:crypto';
import { Repository } from 'typeorm';
import type { CreateFleetKeyDto, FleetKeyCreatedDto } from './dto/create-fleet-key.dto.js';
import { FleetKeyEntity } from './fleet-key.entity.js';
import type { FleetPrincipal } from './fleet-principal.js';

export const hashFleetKey = (key: string): string => createHash('sha256').update(key).digest('hex');

// each replica re-checks a presented key at most this often: a revoked key stops working within it
const AUTH_CACHE_MS = 1000;
const AUTH_CACHE_MAX = 10_000;

@Injectable()
export class FleetKeysService {
  private readonly cache = new Map<string, { principal: FleetPrincipal | null; at: number }>();

  constructor(@InjectRepository(FleetKeyEntity) private readonly keys: Repository<FleetKeyEntity>) {}

  async create(dto: CreateFleetKeyDto): Promise<FleetKeyCreatedDto> {
    const key = `rck_${randomBytes(32).toString('base64url')}`;
    const saved = await this.keys.save(
      this.keys.create({ name: dto.name, groups: [...new Set(dto.groups)], keyHash: hashFleetKey(key) }),
    );
    return { id: saved.id, key };
  }

  async remove(id: string): Promise<void> {
    const result = await this.keys.delete({ id });
    this.cache.clear();
    if (!result.affected) throw new NotFoundException(`fleet key ${id} not found`);
  }

  /** Looks a presented key up by its hash; the hash is the index, so no plaintext is ever compared. */
  async authenticate(key: string): Promise<FleetPrincipal | null> {
    if (key.length > 200) return null;
    const keyHash = hashFleetKey(key);
    const hit = this.cache.get(keyHash);
    if (hit && Date.now() - hit.at < AUTH_CACHE_MS) return hit.principal;
    const found = await this.keys.findOne({ where: { keyHash }, select: { id: true, groups: true } });
    const principal = found ? { keyId: found.id, groups: found.groups } : null;
    if (this.cache.size >= AUTH_CACHE_MAX) this.cache.clear();
    this.cache.set(keyHash, { principal, at: Date.now() });
    return principal;
  }
}
