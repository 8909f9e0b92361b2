/**
 * Interface B, the public share rooms (`/share/`): no login. Its controllers arrive with the
 * storage interface issue; the module is wired now so the gateway's shape does not change.
 */
import { Module } from '@nestjs/common';

export const SHARE_API_CONTROLLERS = [];

@Module({ controllers: SHARE_API_CONTROLLERS })
export class ShareApiModule {}
