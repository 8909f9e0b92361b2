/**
 * HTML pages (share rooms, login, storage browser; the set-password page of activation emails), calling the same services and helpers as the
 * JSON interfaces. Its controllers are registered before the JSON ones (GatewayModule imports this
 * module first): a page route answers only requests that prefer `text/html` (and form posts) and
 * passes every other request on with `next()`.
 */
import { Module } from '@nestjs/common';
import { StorageUserGuard } from '../http/storage-user.guard.js';
import { WebAssetsController } from './assets.js';
import { LoginPageController } from './login-page.controller.js';
import { SharePagesController } from './share-pages.controller.js';
import { SetPasswordController } from './set-password/set-password.controller.js';
import { StoragePagesController } from './storage-pages.controller.js';

export const WEB_CONTROLLERS = [WebAssetsController, LoginPageController, SharePagesController, StoragePagesController, SetPasswordController];

@Module({ controllers: WEB_CONTROLLERS, providers: [StorageUserGuard] })
export class WebModule {}
