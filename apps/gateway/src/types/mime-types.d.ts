// mime-types 3 ships no declarations; the two functions the gateway uses.
declare module 'mime-types' {
  export function lookup(path: string): string | false;
  export function contentType(type: string): string | false;
}
