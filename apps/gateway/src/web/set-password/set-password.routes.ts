/**
 * The routes (path, method, OpenAPI prose and examples) of the set-password page (HTML, no authentication: the link's token is the credential),
 * at the root only. Its answers, errors included, are HTML pages.
 */
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '@burrow/contracts';
import { route } from '../../http/route.js';
import { ex } from '../../openapi/builders.js';
import type { Response } from '../../http/openapi-types.js';
import { FORM_BODY_LIMIT } from '../../http/form-body.js';
import { donePage, formPage, PAGE_CSP, problemPage } from './set-password.page.js';

const HTML = 'text/html';
const tokenParam = {
  name: 'token',
  in: 'path' as const,
  description: 'the token of the link in the activation email (signed; opaque to clients)',
  required: true,
  schema: { type: 'string' },
  example:
    '3f2c9a1e-5b7d-4c8e-9f00-1a2b3c4d5e6f.q3VZ0pLwK8sXe1RtAbCdEf.1700259200.0123456789abcdefghijABCDEFGHIJ_-xyzXYZ01234',
};
const HEADERS = {
  'Content-Security-Policy': {
    description: "no script; only the page's own style (by hash); forms post to the same origin",
    schema: { type: 'string' },
    example: PAGE_CSP,
  },
  'Cache-Control': { description: 'pages are never cached', schema: { type: 'string' }, example: 'no-store' },
};
const page = (description: string, examples: Record<string, string>): Response => ({
  description,
  headers: HEADERS,
  content: {
    [HTML]: {
      schema: { type: 'string' },
      examples: Object.fromEntries(Object.entries(examples).map(([k, v]) => [k, ex(k, v)])),
    },
  },
});
const form = formPage({ username: 'jdoe', name: 'Jane Doe', company_name: 'Acme Backup' });
const dead = {
  404: page('A token this service did not sign (malformed or altered).', { 'not valid': problemPage(404) }),
  410: page('The link expired, was used, was replaced by a newer email, or the password was changed since.', {
    expired: problemPage(410),
  }),
};
const later = page('A service did not answer in time: nothing was changed.', { 'try later': problemPage(503) });

export const SET_PASSWORD_ROUTES = {
  page: route({
    method: 'get',
    path: 'set-password/:token',
    pathItem: {
      servers: [{ url: '/', description: 'served at the root only' }],
    },
    operation: {
      operationId: 'showSetPasswordPage',
      tags: ['pages'],
      summary: 'The set-password page an activation email links to',
      description:
        'Shows a form for the new password (twice). Opening the page does not use the link (mail scanners open links); the link stops working once a password is set through it, when it expires (BURROW_SET_PASSWORD_LINK_TTL_SECONDS), when a newer activation email is sent, or when the password is changed another way.',
      security: [],
      parameters: [tokenParam],
      responses: { '200': page('The form.', { form }), '404': dead[404], '410': dead[410], '503': later },
    },
  }),
  submit: route({
    method: 'post',
    path: 'set-password/:token',
    operation: {
      operationId: 'setPasswordByLink',
      tags: ['pages'],
      summary: 'Set the password through the link (the form posts here)',
      description: `The password rule is every password's: ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters, no NUL. Two requests with one link: one sets the password, the other gets 410, on any gateway or accounts replica.`,
      security: [],
      parameters: [tokenParam],
      requestBody: {
        description: `An HTML form, at most ${FORM_BODY_LIMIT} bytes. \`username\` (sent by the form for password managers) is ignored.`,
        required: true,
        content: {
          'application/x-www-form-urlencoded': {
            schema: {
              type: 'object',
              required: ['password', 'confirm'],
              properties: {
                password: { type: 'string', minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH },
                confirm: { type: 'string' },
                username: { type: 'string' },
              },
            },
            examples: {
              form: ex('the form as a browser posts it', {
                username: 'jdoe',
                password: 'correct horse battery',
                confirm: 'correct horse battery',
              }),
            },
          },
        },
      },
      responses: {
        '200': page('The password is set; the link is spent.', { done: donePage('jdoe') }),
        '400': page(
          'The password breaks the rule, a field holds a NUL character, or the two fields differ: the form again, saying why.',
          {
            mismatch: formPage({
              username: 'jdoe',
              name: 'Jane Doe',
              company_name: 'Acme Backup',
              error: 'The two passwords do not match.',
            }),
            nul: formPage({
              username: 'jdoe',
              name: 'Jane Doe',
              company_name: 'Acme Backup',
              error: 'NUL characters are not allowed.',
            }),
          },
        ),
        '404': dead[404],
        '410': dead[410],
        '413': page(`A form body over ${FORM_BODY_LIMIT} bytes.`, { 'too long': problemPage(413) }),
        '503': later,
      },
    },
  }),
};
