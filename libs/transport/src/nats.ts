/** NATS transport options for @nestjs/microservices (the distributed mode). */
import { ClientNats, type NatsOptions, ServerNats } from '@nestjs/microservices';

export const natsServer = (url: string, queue: string) =>
  new ServerNats({ servers: [url], queue, name: `burrow-${queue}` } as NonNullable<NatsOptions['options']>);

export const natsClient = (url: string, name: string) =>
  new ClientNats({ servers: [url], name: `burrow-${name}` } as NonNullable<NatsOptions['options']>);
