/**
 * The handler route of an incoming subject. Burrow's subjects are dotted names
 * (`accounts.getUser`); Nest's server strategies first try `JSON.parse` on every incoming pattern
 * (object patterns arrive as JSON), which for a dotted name throws and builds a SyntaxError with
 * its stack trace on every message: about 5% of a small interface A request's CPU (two messages
 * per request). A dotted name is its own route, as Nest would find it after the throw.
 */
const DOTTED_NAME = /^[A-Za-z_][\w.-]*$/;

/** The route for `pattern` when it is a plain subject name; undefined for anything Nest must parse. */
export function plainSubjectRoute(pattern: string): string | undefined {
  return DOTTED_NAME.test(pattern) && pattern !== 'true' && pattern !== 'false' && pattern !== 'null'
    ? pattern
    : undefined;
}
