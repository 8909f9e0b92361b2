/**
 * The user's password for import-folder: from BURROW_USER_PASSWORD, or asked on the terminal
 * without echo. Never a command-line argument (other users of the machine see those in `ps`).
 */
import { UsageError } from '../command-line.js';

export const PASSWORD_ENV = 'BURROW_USER_PASSWORD';

/** Whether a password can be had at all: checked while the command line is read, before anything is opened. */
export function checkPasswordSource(): void {
  if (process.env[PASSWORD_ENV]) return;
  if (!process.stdin.isTTY || !process.stderr.isTTY)
    throw new UsageError(`set ${PASSWORD_ENV} to the user's password (there is no terminal to ask it on)`);
}

export async function userPassword(username: string): Promise<string> {
  const fromEnv = process.env[PASSWORD_ENV];
  if (fromEnv) return fromEnv;
  return promptHidden(`password for ${username}: `);
}

function promptHidden(question: string): Promise<string> {
  const { stdin, stderr } = process;
  stderr.write(question);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let password = '';
    const finish = (error?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      stderr.write('\n');
      if (error) reject(error);
      else resolve(password);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return finish();
        if (char === '\u0003' || char === '\u0004') return finish(new UsageError('no password given'));
        if (char === '\u007f' || char === '\b') password = [...password].slice(0, -1).join('');
        else if (char >= ' ') password += char;
      }
    };
    stdin.on('data', onData);
  });
}
