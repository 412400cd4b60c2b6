import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TransitionEntity } from './transition.entity.js';
import { TransitionsController } from './transitions.controller.js';
import { TransitionsService } from './transitions.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([TransitionEntity])],
  controllers: [TransitionsController],
  providers: [TransitionsService],
  exports: [TransitionsService],
})
export class TransitionsModule {}
