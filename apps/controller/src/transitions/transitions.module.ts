import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ReceiptsModule } from '../receipts/receipts.module.js';
import { TransitionEntity } from './transition.entity.js';
import { TransitionsController } from './transitions.controller.js';
import { TransitionsService } from './transitions.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([TransitionEntity]), ReceiptsModule],
  controllers: [TransitionsController],
  providers: [TransitionsService],
  exports: [TransitionsService],
})
export class TransitionsModule {}
