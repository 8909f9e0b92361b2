/**
 * Structured JSON logs (pino). Secrets are redacted by key wherever they appear, so a password or
 * card number passed along by mistake never reaches the log.
 */
import { pino, type Logger } from 'pino';

export const REDACTED_KEYS = [
  'password',
  'new_password',
  'passwordHash',
  'password_hash',
  'temp_password',
  'card_number',
  'security_code',
  'authorization',
  'cookie',
  'secret',
];

export type { Logger };

/**
 * `fields`: what every line gets besides its own (with tracing on, the active span's `trace_id`
 * and `span_id`: a line logged while a request is handled names its trace); none, nothing is added.
 */
export function createLogger(
  name: string,
  level = 'info',
  destination?: pino.DestinationStream,
  fields?: () => Record<string, string>,
): Logger {
  const paths = REDACTED_KEYS.flatMap((k) => [k, `*.${k}`, `*.*.${k}`, `req.headers.${k}`]);
  return pino(
    {
      name,
      level,
      redact: { paths, censor: '[redacted]' },
      base: { service: name },
      ...(fields ? { mixin: fields } : {}),
    },
    destination,
  );
}
