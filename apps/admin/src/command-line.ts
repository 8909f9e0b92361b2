/**
 * The admin CLI's command line, parsed before anything is opened: help, an unknown command or
 * option, a missing or malformed value are all answered here, without touching the data directory
 * or the bus (main.ts exits 0 for help, 2 for a usage error). Each command declares its options
 * once; the parser, the required-option check and the usage text all come from that declaration.
 */
import type { RpcClient } from '@burrow/transport';
import { parseArgs } from 'node:util';

export const PROGRAM = 'npm run admin --';

/** The command line cannot be run as given; `usage` says how it can. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage = '',
  ) {
    super(message);
  }
}

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** placeholder in the usage (`--username U`); string options only */
  value?: string;
  required?: boolean;
  /** the only values accepted (checked here, shown in the usage) */
  choices?: readonly string[];
  description: string;
}

export type OptionValues = Record<string, string | boolean | undefined>;

/** What a prepared command does once the bus is there: its result, printed as JSON (or a FailedResult). */
export type BusAction = (rpc: RpcClient) => Promise<unknown>;

/** A bus action's result that also fails the command (it found problems): printed as JSON, exit 1. */
export class FailedResult {
  constructor(readonly result: unknown) {}
}

/**
 * What a command that needs no bus does (import-folder talks HTTP to a gateway): main opens
 * neither the bus nor the data directory for it. `failed`: the JSON result is printed, and the
 * exit code is 1.
 */
export interface DirectAction {
  direct(): Promise<{ result: unknown; failed: boolean }>;
}

export type AdminAction = BusAction | DirectAction;

export interface ArgumentSpec {
  /** its name in the usage (`PATH`), and its key in the values given to `prepare` */
  name: string;
  description: string;
}

export interface AdminCommand {
  name: string;
  /** one line, for the list of commands */
  summary: string;
  /** more about the command, for its own --help (optional) */
  details?: string;
  options: Record<string, OptionSpec>;
  /** required positional arguments, after the options in the usage */
  arguments?: readonly ArgumentSpec[];
  /**
   * Checks what the CLI can check on its own (a `UsageError` otherwise) and returns what to do on
   * the bus. The services validate the request again with the contracts' schemas.
   */
  prepare(values: OptionValues): AdminAction;
  /** run on the standalone data directory, the command needs the storage catalog too (not only accounts and billing) */
  storageCatalog?: boolean;
}

export type CommandLine = { help: string } | { command: AdminCommand; action: AdminAction };

const isHelp = (arg: string) => arg === '--help' || arg === '-h';

const optionWithValue = (name: string, spec: OptionSpec) =>
  spec.type === 'string' ? `--${name} ${spec.choices ? spec.choices.join('|') : (spec.value ?? 'VALUE')}` : `--${name}`;

function synopsis(command: AdminCommand): string {
  const parts = Object.entries(command.options).map(([name, spec]) =>
    spec.required ? optionWithValue(name, spec) : `[${optionWithValue(name, spec)}]`,
  );
  return [command.name, ...parts, ...(command.arguments ?? []).map((a) => a.name)].join(' ');
}

/** What a usage error about `command` shows: its synopsis and where the details are. */
export const shortUsage = (command: AdminCommand): string =>
  `usage: ${PROGRAM} ${synopsis(command)}\n(${PROGRAM} ${command.name} --help describes each option)\n`;

/** A command's --help. */
export function commandUsage(command: AdminCommand): string {
  const lines = [`usage: ${PROGRAM} ${synopsis(command)}`, '', command.summary];
  if (command.details) lines.push('', command.details);
  const options = Object.entries(command.options);
  const args = command.arguments ?? [];
  if (args.length) {
    lines.push('', 'arguments:');
    const width = Math.max(...args.map((a) => a.name.length)) + 2;
    for (const a of args) lines.push(`  ${a.name.padEnd(width)}${a.description}`);
  }
  if (options.length) {
    lines.push('', 'options:');
    const width = Math.max(...options.map(([name, spec]) => optionWithValue(name, spec).length)) + 2;
    for (const [name, spec] of options)
      lines.push(
        `  ${optionWithValue(name, spec).padEnd(width)}${spec.required ? '(required) ' : ''}${spec.description}`,
      );
  }
  return lines.join('\n') + '\n';
}

export function programUsage(commands: readonly AdminCommand[]): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  return [
    `usage: ${PROGRAM} <command> [options]`,
    `       ${PROGRAM} <command> --help     (that command's options)`,
    '',
    'commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    'Without NATS_URL the command runs on the standalone data directory (BURROW_DATA_DIR, default',
    './data); with NATS_URL it is sent to the running services.',
    'import-folder needs neither: it talks HTTP to a gateway (--url, BURROW_URL).',
    '',
  ].join('\n');
}

/** Reads one command line; `UsageError` when it cannot be run as given. Opens nothing. */
export function parseCommandLine(argv: readonly string[], commands: readonly AdminCommand[]): CommandLine {
  const [first, ...rest] = argv;
  if (first === undefined) throw new UsageError('no command given', programUsage(commands));
  if (isHelp(first)) return { help: programUsage(commands) };
  if (first === 'help') {
    if (rest.length === 0) return { help: programUsage(commands) };
    const named = commands.find((c) => c.name === rest[0]);
    if (!named) throw new UsageError(`unknown command ${rest[0]}`, programUsage(commands));
    return { help: commandUsage(named) };
  }
  if (first.startsWith('-'))
    throw new UsageError(`unknown option ${first} (options follow the command)`, programUsage(commands));
  const command = commands.find((c) => c.name === first);
  if (!command) throw new UsageError(`unknown command ${first}`, programUsage(commands));
  const usage = shortUsage(command);
  // before the options are checked: `create-partner --bogus --help` still shows the help
  const beforeSeparator = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
  if (beforeSeparator.some(isHelp)) return { help: commandUsage(command) };

  let values: OptionValues;
  const argumentSpecs = command.arguments ?? [];
  try {
    const options = Object.fromEntries(
      Object.entries(command.options).map(([name, spec]) => [name, { type: spec.type }]),
    );
    const parsed = parseArgs({ args: [...rest], options, strict: true, allowPositionals: argumentSpecs.length > 0 });
    values = { ...parsed.values };
    const extra = parsed.positionals.slice(argumentSpecs.length);
    if (extra.length) throw new Error(`Unexpected argument '${extra[0]}'`);
    argumentSpecs.forEach((spec, i) => (values[spec.name] = parsed.positionals[i]));
  } catch (error) {
    // node's messages name the option ("Unknown option '--bogus'", "Unexpected argument 'extra'")
    throw new UsageError(`${command.name}: ${(error as Error).message.split('\n')[0]}`, usage);
  }
  const missing = [
    ...Object.entries(command.options)
      .filter(([name, spec]) => spec.required && (values[name] === undefined || values[name] === ''))
      .map(([name]) => `--${name}`),
    ...argumentSpecs.filter((a) => values[a.name] === undefined || values[a.name] === '').map((a) => a.name),
  ];
  if (missing.length) throw new UsageError(`${command.name} needs ${missing.join(', ')}`, usage);
  for (const [name, spec] of Object.entries(command.options)) {
    const value = values[name];
    if (spec.choices && typeof value === 'string' && !spec.choices.includes(value)) {
      throw new UsageError(`--${name} must be one of ${spec.choices.join(', ')} (got "${value}")`, usage);
    }
  }
  try {
    return { command, action: command.prepare(values) };
  } catch (error) {
    if (error instanceof UsageError) throw new UsageError(error.message, usage);
    throw error;
  }
}

// ---- value readers for `prepare` ----------------------------------------------------------------

/** A required string option (parseCommandLine has checked it is there). */
export const given = (values: OptionValues, name: string): string => values[name] as string;

/** An optional string option. */
export const optional = (values: OptionValues, name: string): string | undefined => values[name] as string | undefined;

/** A whole number (its bounds are the service's to check); undefined when the option was not given. */
export function wholeNumber(values: OptionValues, name: string): number | undefined {
  const value = optional(values, name);
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number (got "${value}")`);
  return Number(value);
}
