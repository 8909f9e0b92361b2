/** The command-line parser on its own: what is help, what is a usage error, what reaches `prepare`. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type AdminCommand,
  type BusAction,
  type OptionValues,
  parseCommandLine,
  UsageError,
  wholeNumber,
} from './command-line.js';

let prepared: OptionValues | null = null;
const commands: AdminCommand[] = [
  {
    name: 'release',
    summary: 'release something',
    options: {
      kind: { type: 'string', choices: ['a', 'b'], required: true, description: 'which kind' },
      limit: { type: 'string', value: 'N', description: 'how many' },
      force: { type: 'boolean', description: 'even if live' },
    },
    prepare(values) {
      prepared = values;
      wholeNumber(values, 'limit');
      return async () => values;
    },
  },
  {
    name: 'copy',
    summary: 'copy a folder',
    options: { to: { type: 'string', value: 'DIR', required: true, description: 'where' } },
    arguments: [{ name: 'PATH', description: 'what' }],
    prepare: (values) => ({ direct: async () => ({ result: values, failed: false }) }),
  },
];

const usageError = (argv: string[]): UsageError => {
  try {
    parseCommandLine(argv, commands);
  } catch (error) {
    assert.ok(error instanceof UsageError, String(error));
    return error;
  }
  assert.fail(`${argv.join(' ')} was accepted`);
};

describe('admin command line', () => {
  it('help, at the top or for one command, never prepares anything', () => {
    prepared = null;
    for (const argv of [['--help'], ['-h'], ['help']])
      assert.match((parseCommandLine(argv, commands) as { help: string }).help, /release\s+release something/);
    for (const argv of [
      ['release', '--help'],
      ['release', '--bogus', '-h'],
      ['help', 'release'],
    ]) {
      const { help } = parseCommandLine(argv, commands) as { help: string };
      assert.match(help, /--kind a\|b\s+\(required\) which kind/);
      assert.match(help, /\[--force\]/);
    }
    assert.equal(prepared, null);
  });

  it('an unknown command or option, a missing or malformed value, a stray argument: a usage error naming it', () => {
    assert.match(usageError([]).message, /no command/);
    assert.match(usageError(['frobnicate']).message, /unknown command frobnicate/);
    assert.match(usageError(['--kind']).message, /unknown option --kind/);
    assert.match(usageError(['release', '--kind', 'a', '--bogus']).message, /--bogus/);
    assert.match(usageError(['release']).message, /needs --kind/);
    assert.match(usageError(['release', '--kind', 'c']).message, /--kind must be one of a, b/);
    assert.match(usageError(['release', '--kind', 'a', 'stray']).message, /stray/);
    const malformed = usageError(['release', '--kind', 'a', '--limit', 'ten']);
    assert.match(malformed.message, /--limit must be a whole number/);
    assert.match(
      malformed.usage,
      /usage: .* release --kind a\|b/,
      "a value refused in prepare carries the command's usage",
    );
  });

  it('a positional argument: shown in the usage, required, one only, given to prepare under its name', async () => {
    assert.match(
      (parseCommandLine(['copy', '--help'], commands) as { help: string }).help,
      /copy --to DIR PATH[\s\S]*arguments:\s+PATH\s+what/,
    );
    assert.match(usageError(['copy', '--to', 'x']).message, /copy needs PATH/);
    assert.match(usageError(['copy']).message, /needs --to, PATH/);
    assert.match(usageError(['copy', '--to', 'x', 'a', 'b']).message, /Unexpected argument 'b'/);
    assert.match(
      usageError(['release', '--kind', 'a', 'stray']).message,
      /stray/,
      'a command without arguments still refuses one',
    );
    const line = parseCommandLine(['copy', 'some dir', '--to', 'x'], commands);
    assert.ok('action' in line && typeof line.action !== 'function');
    assert.deepEqual({ ...((await line.action.direct()).result as object) }, { to: 'x', PATH: 'some dir' });
  });

  it('a valid line reaches prepare with its values', async () => {
    const line = parseCommandLine(['release', '--kind', 'b', '--force', '--limit', '5'], commands);
    assert.ok('action' in line);
    assert.deepEqual(
      { ...((await (line.action as BusAction)(null as never)) as object) },
      { kind: 'b', force: true, limit: '5' },
    );
  });
});
