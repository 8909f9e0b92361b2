/**
 * The mongodb driver, loaded when a store connects (not by every process that imports this
 * library), and how its errors say a unique index refused a write (MongoDB's way and FerretDB's).
 */
import type * as MongoDriver from 'mongodb';
import type { MongoServerError } from 'mongodb';

/** the driver module, once a store has connected */
export let mongo: typeof MongoDriver;

/** Loads the driver (once): a store connecting is the first to need it. */
export async function loadMongoDriver(): Promise<typeof MongoDriver> {
  mongo ??= await import('mongodb');
  return mongo;
}

export const DUPLICATE_KEY = 11000;

/**
 * A unique-index violation as MongoDB reports it (11000), or as FerretDB does on a replace or a
 * createIndex: code 1 with the backend's own error (PostgreSQL's SQLSTATE 23505, SQLite's
 * extended code 2067, SQLITE_CONSTRAINT_UNIQUE).
 */
export function isDuplicateKeyCode(code: unknown, message: string | undefined): boolean {
  return (
    code === DUPLICATE_KEY ||
    (code === 1 && /\b23505\b|UNIQUE constraint failed|\(2067\)|duplicate key/i.test(message ?? ''))
  );
}

export function isDuplicateKey(error: unknown): error is MongoServerError {
  return (
    mongo !== undefined && error instanceof mongo.MongoServerError && isDuplicateKeyCode(error.code, error.message)
  );
}

export function duplicateKeyOf(error: MongoServerError): string {
  return error.keyValue ? JSON.stringify(error.keyValue) : error.message;
}
