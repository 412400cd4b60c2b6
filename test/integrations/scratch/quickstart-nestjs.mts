// README quick start: the NestJS module (compiled with tsc against the installed packages' types,
// then run, by test/integrations/packed-workers.test.ts).
import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Breaker } from '@recloser/client';
import { InjectBreaker, RecloserModule } from '@recloser/nestjs';

@Injectable()
class Summarizer {
  constructor(@InjectBreaker('llm-provider') private readonly llm: Breaker) {}

  async summarize(text: string): Promise<number> {
    const res = await this.llm.fetch(`${process.env.PROVIDER_URL}/v1/summarize`, {
      method: 'POST',
      body: text,
    });
    return res.status;
  }
}

@Module({
  imports: [
    RecloserModule.forRootAsync({
      useFactory: () => ({
        url: process.env.RECLOSER_URL!,
        key: process.env.RECLOSER_FLEET_KEY!,
        instanceId: process.env.INSTANCE_ID ?? 'worker-1',
        group: process.env.GROUP ?? 'summarizers',
        region: 'eu-west',
      }),
      breakers: ['llm-provider'],
    }),
  ],
  providers: [Summarizer],
})
class WorkerModule {}

const app = await NestFactory.createApplicationContext(WorkerModule, { logger: false });
const status = await app.get(Summarizer).summarize('hello');
await app.close(); // heartbeats stop; a probe in flight finishes and reports first
console.log(JSON.stringify({ quickstart: 'nestjs', status }));
