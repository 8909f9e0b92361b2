/** The one way tests expect a domain error: the promise rejects with a DomainError of this status. */
import { DomainError } from '@burrow/contracts';
import assert from 'node:assert/strict';

/** Awaits a rejection with a DomainError of this status and returns it. */
export async function expectError(promise: Promise<unknown>, status: number): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof DomainError, String(error));
    assert.equal(error.status, status, JSON.stringify(error.body));
    return error;
  }
  assert.fail(`expected a ${status}`);
}
