/**
 * HTML pages (share rooms, login, storage browser), calling the same services as the JSON
 * interfaces. Its controllers arrive with the web pages issue.
 */
import { Module } from '@nestjs/common';

export const WEB_CONTROLLERS = [];

@Module({ controllers: WEB_CONTROLLERS })
export class WebModule {}
