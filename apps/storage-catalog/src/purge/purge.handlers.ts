/**
 * The operator's way to run the purger now (`storage-catalog.purge.run`): the reply is the run's
 * report, sent once the run is over and this replica's read models show it. A run can take long on
 * a large catalog: call it with a generous timeout.
 */
import { type PurgeReport, Subjects } from '@burrow/contracts';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { Purger } from './purger.js';

export const PURGER = Symbol('PURGER');

@Controller()
export class PurgeHandlers {
  constructor(@Inject(PURGER) private readonly purger: Purger) {}

  @MessagePattern(Subjects.storage.runPurge)
  run(): Promise<PurgeReport> {
    return this.purger.run();
  }
}
