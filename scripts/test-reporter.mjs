/**
 * A reporter for node's test runner (`--test-reporter=./scripts/test-reporter.mjs`) that writes one
 * JSON line per finished test and per summary figure, for scripts/run-tests.mjs to add up across
 * test files run in parallel. People read the spec reporter's output, written beside it.
 */
export default async function* jsonLines(source) {
  for await (const event of source) {
    if (event.type === 'test:pass' || event.type === 'test:fail') {
      const { name, nesting, details, skip, todo } = event.data;
      yield (
        JSON.stringify({
          type: event.type === 'test:pass' ? 'pass' : 'fail',
          name,
          nesting,
          wallMs: details?.duration_ms,
          skip: skip !== undefined && skip !== false,
          todo: todo !== undefined && todo !== false,
          suite: details?.type === 'suite',
        }) + '\n'
      );
    } else if (event.type === 'test:diagnostic' && event.data.nesting === 0) {
      const match = /^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) ([\d.]+)$/.exec(event.data.message);
      if (match) yield JSON.stringify({ type: 'summary', key: match[1], value: Number(match[2]) }) + '\n';
    }
  }
}
