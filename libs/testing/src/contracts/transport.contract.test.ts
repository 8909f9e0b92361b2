import 'reflect-metadata';
import { InProcessBus, InProcessClient, InProcessServer, natsClient, natsServer } from '@burrow/transport';
import type { ClientProxy } from '@nestjs/microservices';
import { transportContract } from './transport.contract.js';

transportContract('in-process bus', async () => {
  const bus = new InProcessBus();
  return { server: (queue) => new InProcessServer(bus, queue), client: () => new InProcessClient(bus) };
});

const natsUrl = process.env.NATS_URL;
transportContract(
  'NATS',
  natsUrl
    ? async () => ({
        server: (queue) => natsServer(natsUrl, queue),
        client: () => natsClient(natsUrl, 'contract') as unknown as ClientProxy,
      })
    : null,
  'NATS_URL not set: no NATS server for this run',
);
