/**
 * The routes (path, method, OpenAPI prose and examples) of the web pages' own routes: the login page and the pages' static files. The pages
 * served at JSON routes (share rooms, the storage browser, the login form post) are described on
 * those routes: a request preferring `text/html` gets the page (docs/api.md, "Web pages").
 */
import { route } from '../http/route.js';
import { err, error, ex, pathParameter } from '../openapi/builders.js';

const page = (description: string, example: string) => ({
  description,
  content: { 'text/html': { schema: { type: 'string' as const }, examples: { page: ex('the page', example) } } },
});

export const WEB_ROUTES = {
  loginPage: route({
    method: 'get',
    path: 'browse/login',
    operation: {
      operationId: 'loginPage',
      tags: ['web pages'],
      summary: 'The login page (HTML)',
      description:
        'A form posting `username`, `password` and a form token to `POST /browse/login`. A form post that prefers `text/html` is answered with a 303 to the ' +
        'storage browser (the session cookie set), or the form again with the error (403, 429 with the wait); other clients keep the `login:` text reply.',
      security: [],
      responses: {
        '200': page(
          'The form (Cache-Control: no-store).',
          '<!doctype html><html lang="en">...<form method="post" action="/browse/login">...',
        ),
      },
    },
  }),
  asset: route({
    method: 'get',
    path: 'browse/static/:name',
    operation: {
      operationId: 'webAsset',
      tags: ['web pages'],
      summary: "The pages' stylesheet, script and icons",
      description: '`style.css`, `copy.js`, `file.svg`, `folder.svg`; cached for a day, with an ETag.',
      security: [],
      parameters: [
        pathParameter(
          'name',
          'the file',
          { type: 'string', enum: ['style.css', 'copy.js', 'file.svg', 'folder.svg'] },
          'style.css',
        ),
      ],
      responses: {
        '200': {
          description: 'The file.',
          content: {
            'text/css': { schema: { type: 'string' }, examples: { css: ex('the stylesheet', ':root{--fg:#1b1f24}') } },
          },
        },
        '304': { description: 'Not modified. The body is empty.' },
        '404': error('No such file.', { unknown: ex('unknown', err('no asset x.css')) }),
      },
    },
  }),
};
