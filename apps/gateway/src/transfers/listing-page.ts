/**
 * How many entries the gateway asks the storage catalog for per page of a folder listing
 * (BURROW_LISTING_PAGE_SIZE, default LISTING_PAGE_DEFAULT): a listing streams page after page, so
 * this bounds what one listing holds at a time. Set once at start.
 */
import { LISTING_PAGE_DEFAULT, LISTING_PAGE_MAX } from '@burrow/contracts';

let size = LISTING_PAGE_DEFAULT;

export const listingPageSize = (): number => size;

export function setListingPageSize(entries: number): void {
  if (!Number.isInteger(entries) || entries < 1 || entries > LISTING_PAGE_MAX)
    throw new Error(`a listing page holds 1 to ${LISTING_PAGE_MAX} entries (got ${entries})`);
  size = entries;
}
