/**
 * HTML pages (share rooms, login, storage browser; the set-password page of activation emails),
 * calling the same services and helpers as the JSON interfaces.
 *
 * A room, a folder and the login form have one URL for browsers and API clients alike. Each such
 * route has one handler, the API's; the pages for them are middleware on those paths, run before
 * routing whatever the order of modules: a request a page is for (it prefers `text/html`; a form
 * post) is answered by the page, every other one goes on to the route. The pages' own URLs (the
 * login form, set-password, static files) are routes of this module's controllers.
 */
import { type MiddlewareConsumer, Module, type NestModule, RequestMethod } from '@nestjs/common';
import { SHARE_MOUNT, STORAGE_MOUNT } from '../storage-access/mounts.js';
import { StorageUserGuard } from '../storage-access/storage-user.guard.js';
import { WebAssetsController } from './assets.js';
import { LOGIN_PAGE, LoginFormPost, LoginPageController } from './login-page.js';
import { SetPasswordController } from './set-password/set-password.controller.js';
import { SharePages } from './share-pages.middleware.js';
import { StoragePages } from './storage-pages.middleware.js';

export const WEB_CONTROLLERS = [WebAssetsController, LoginPageController, SetPasswordController];

@Module({ controllers: WEB_CONTROLLERS, providers: [StorageUserGuard, StoragePages, SharePages, LoginFormPost] })
export class WebModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(StoragePages)
      .forRoutes(
        { path: `${STORAGE_MOUNT}/*path`, method: RequestMethod.GET },
        { path: `${STORAGE_MOUNT}/*path`, method: RequestMethod.POST },
      );
    consumer
      .apply(SharePages)
      .forRoutes(
        { path: `${SHARE_MOUNT}/*path`, method: RequestMethod.GET },
        { path: `${SHARE_MOUNT}/*path`, method: RequestMethod.POST },
      );
    consumer.apply(LoginFormPost).forRoutes({ path: LOGIN_PAGE.slice(1), method: RequestMethod.POST });
  }
}
