/**
 * The failed-login limits, declared once: the login throttle (libs/runtime) applies them, and the
 * OpenAPI document quotes them. They hold for every kind of login (partner API logins today, user
 * logins later), counted in a store every replica shares.
 */

export interface LoginPolicy {
  account: {
    /** failures within `windowMs`, from addresses the account is not known at, that lock it */
    threshold: number;
    windowMs: number;
    /** the first lock; each further lock doubles it, up to `maxLockMs` */
    firstLockMs: number;
    maxLockMs: number;
  };
  address: {
    /** failures from one client address, over all accounts, within `windowMs` */
    threshold: number;
    windowMs: number;
  };
  knownAddress: {
    /** how long after a successful login an address stays known for that account */
    rememberMs: number;
    /** failures a known address may make for that account within `windowMs` */
    threshold: number;
    windowMs: number;
  };
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const LOGIN_POLICY: LoginPolicy = Object.freeze({
  account: Object.freeze({ threshold: 20, windowMs: DAY, firstLockMs: MINUTE, maxLockMs: HOUR }),
  address: Object.freeze({ threshold: 100, windowMs: MINUTE }),
  knownAddress: Object.freeze({ rememberMs: 30 * DAY, threshold: 5, windowMs: 15 * MINUTE }),
});
