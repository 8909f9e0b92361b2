/**
 * Interface B, the public share rooms (`/share/`) and single-file share links (`/link/`): no login.
 */
import { Module } from '@nestjs/common';
import { ShareController } from './share.controller.js';

export const SHARE_API_CONTROLLERS = [ShareController];

@Module({ controllers: SHARE_API_CONTROLLERS })
export class ShareApiModule {}
