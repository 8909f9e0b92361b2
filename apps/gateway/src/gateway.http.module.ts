/**
 * What every interface module of the gateway shares, and nothing else: the bus client (the only
 * way a controller reaches a service), read access to the blob store, the logger, the public base
 * URL for links, and the guards.
 * Controllers receive what they use through these tokens; no controller can reach the event store
 * or the read models (the boundaries test checks their imports).
 */
import type { BlobReader, BlobWriter } from '@burrow/blobs';
import type { DiskSpace, Logger } from '@burrow/runtime';
import type { BusStatus, RpcClient } from '@burrow/transport';
import { type DynamicModule, Global, Module } from '@nestjs/common';
import { PartnerGuard } from './partner-access/partner.guard.js';
import type { Sessions } from './storage-access/sessions.js';
import type { TokenSigner } from './storage-access/signed-tokens.js';
import {
  BLOBS,
  BUS_STATUS,
  DISK,
  GATEWAY_LOGGER,
  PUBLIC_URL,
  RPC,
  SESSIONS,
  SIGNER,
  UPLOAD_HINTS,
} from './http/tokens.js';
import { UploadHints } from './transfers/upload-hints.js';

export interface HttpDependencies {
  rpc: RpcClient;
  /** read, and add uploaded blobs: the gateway never deletes one */
  blobs: BlobReader & BlobWriter;
  /** the data directory's free space (/readyz; uploads refuse to start below the threshold) */
  disk: DiskSpace;
  log: Logger;
  /** the state of this process's bus connections (for /healthz) */
  busStatus: BusStatus;
  /** signs and verifies sessions, links and session extensions with the shared key set */
  signer: TokenSigner;
  sessions: Sessions;
  /** absolute base URL for links (BURROW_PUBLIC_URL); links are relative without it */
  publicUrl?: string;
}

@Global()
@Module({})
export class HttpModule {
  static forRoot(deps: HttpDependencies): DynamicModule {
    const providers = [
      { provide: RPC, useValue: deps.rpc },
      { provide: BLOBS, useValue: deps.blobs },
      { provide: DISK, useValue: deps.disk },
      { provide: GATEWAY_LOGGER, useValue: deps.log },
      { provide: BUS_STATUS, useValue: deps.busStatus },
      { provide: SIGNER, useValue: deps.signer },
      { provide: SESSIONS, useValue: deps.sessions },
      { provide: UPLOAD_HINTS, useValue: new UploadHints() },
      { provide: PUBLIC_URL, useValue: (deps.publicUrl ?? '').replace(/\/+$/, '') },
      PartnerGuard,
    ];
    return { module: HttpModule, providers, exports: providers };
  }
}
