/**
 * A webhook URL as a partner may register it: absolute, https (http only where the operator allows
 * it), without credentials or a fragment, and whose host resolves to allowed addresses only. The
 * same address check runs again on every connection (address-policy.ts): this one gives the
 * partner a clear 400 at once; that one stops DNS rebinding.
 */
import { badRequest } from '@burrow/contracts';
import { allowedAddresses, RefusedAddressError, type Resolver } from './address-policy.js';

export async function checkWebhookUrl(
  raw: string,
  policy: { allowHttp: boolean; allowPrivate: boolean },
  resolve: Resolver,
): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest('url is not a valid absolute URL', ['url']);
  }
  if (url.protocol !== 'https:' && !(policy.allowHttp && url.protocol === 'http:')) {
    throw badRequest(policy.allowHttp ? 'url must use https or http' : 'url must use https', ['url']);
  }
  if (url.username || url.password)
    throw badRequest('url must not contain credentials (deliveries are signed instead)', ['url']);
  url.hash = '';
  try {
    await allowedAddresses(url.hostname, policy.allowPrivate, resolve);
  } catch (error) {
    if (error instanceof RefusedAddressError) throw badRequest(`url refused: ${error.message}`, ['url']);
    throw badRequest(`url: the host ${url.hostname} does not resolve`, ['url']);
  }
  return url.toString();
}
