/** The logger shape the transport library writes to (pino's Logger fits), so it needs no logging package. */
export interface TransportLogger {
  info(fields: object, msg: string): void;
  warn(fields: object, msg: string): void;
  error(fields: object, msg: string): void;
  debug(fields: object, msg: string): void;
}
