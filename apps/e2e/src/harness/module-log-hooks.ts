/** The resolve hook of module-log.ts (it runs on the loader's thread). */
import { appendFileSync } from 'node:fs';

let file = '';

export function initialize(data: { file: string }): void {
  file = data.file;
}

interface Resolved {
  url: string;
}

export async function resolve(
  specifier: string,
  context: unknown,
  nextResolve: (specifier: string, context: unknown) => Promise<Resolved>,
): Promise<Resolved> {
  const resolved = await nextResolve(specifier, context);
  if (file && resolved.url.includes('/@opentelemetry/')) appendFileSync(file, `${resolved.url}\n`);
  return resolved;
}
