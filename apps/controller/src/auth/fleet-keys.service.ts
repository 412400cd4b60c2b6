import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash, randomBytes } from 'node:crypto';
import { Repository } from 'typeorm';
import type { CreateFleetKeyDto, FleetKeyCreatedDto } from './dto/create-fleet-key.dto.js';
import { FleetKeyEntity } from './fleet-key.entity.js';
import type { FleetPrincipal } from './fleet-principal.js';

export const hashFleetKey = (key: string): string => createHash('sha256').update(key).digest('hex');

@Injectable()
export class FleetKeysService {
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
    if (!result.affected) throw new NotFoundException(`fleet key ${id} not found`);
  }

  /** Looks a presented key up by its hash; the hash is the index, so no plaintext is ever compared. */
  async authenticate(key: string): Promise<FleetPrincipal | null> {
    if (key.length > 200) return null;
    const found = await this.keys.findOne({
      where: { keyHash: hashFleetKey(key) },
      select: { id: true, groups: true },
    });
    return found ? { keyId: found.id, groups: found.groups } : null;
  }
}
