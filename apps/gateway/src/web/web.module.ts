/**
 * HTML pages (share rooms, login, storage browser; the set-password page of activation emails),
 * calling the same services as the JSON interfaces.
 */
import { Module } from '@nestjs/common';
import { SetPasswordController } from './set-password/set-password.controller.js';

export const WEB_CONTROLLERS = [SetPasswordController];

@Module({ controllers: WEB_CONTROLLERS })
export class WebModule {}
