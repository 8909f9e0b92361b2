/** The partner's event feed (JSON pages and Server-Sent Events) and its webhooks, on interface A's mounts. */
import { type DynamicModule, Module } from '@nestjs/common';
import { EVENTS_OPTIONS, type EventsOptions } from './events.options.js';
import { FeedController } from './feed.controller.js';
import { WebhooksController } from './webhooks.controller.js';

export const EVENTS_CONTROLLERS = [FeedController, WebhooksController];

@Module({})
export class EventsModule {
  static forRoot(options: EventsOptions): DynamicModule {
    return {
      module: EventsModule,
      controllers: EVENTS_CONTROLLERS,
      providers: [{ provide: EVENTS_OPTIONS, useValue: options }],
    };
  }
}
