// `outpost login`: exchanges an e-mail and password (and a second factor, when the account has
// one) for a token and stores it (mode 0600).
import { createInterface } from 'node:readline';
import { ApiClient } from '../api-client.js';
import { UsageError } from '../cli-error.js';
import { serverUrl, storeLogin, type CliEnv } from '../settings.js';

export interface LoginFlags {
  email?: string;
  password?: string;
  /** A code of the authenticator app, or a recovery code (`xxxxx-xxxxx`). */
  code?: string;
}

interface MfaRequired {
  mfa_required: true;
  mfa_token: string;
  mfa_enrollment_required?: boolean;
}

/** Recovery codes are two groups joined by a dash; app codes are digits. */
const RECOVERY_CODE = /^[a-z0-9]+-[a-z0-9]+$/i;

export async function login(flagUrl: string | undefined, flags: LoginFlags, env: CliEnv, print: (line: string) => void): Promise<number> {
  const url = serverUrl(flagUrl, env);
  const email = flags.email ?? (await prompt('E-mail: ', false));
  const password = flags.password ?? (await prompt('Password: ', true));
  if (!email || !password) throw new UsageError('login needs an e-mail and a password');
  const client = new ApiClient(url);
  let reply = await client.post<{ token: string } | MfaRequired>('/auth/login', { email, password });
  if ('mfa_required' in reply) {
    if (reply.mfa_enrollment_required) {
      throw new UsageError('your organization requires a second factor: set one up by signing in to the dashboard, then log in here again');
    }
    const code = flags.code ?? (await prompt('Code from your authenticator app (or a recovery code): ', false));
    if (!code) throw new UsageError('this account has a second factor: pass --code or type the code when asked');
    reply = await client.post<{ token: string }>('/auth/login/mfa', { mfa_token: reply.mfa_token, ...(RECOVERY_CODE.test(code) ? { recovery_code: code } : { code }) });
  }
  if (!('token' in reply)) throw new UsageError('the server asked for another second factor; sign in to the dashboard');
  const file = storeLogin(env, { url, token: reply.token, email });
  print(`logged in to ${url} as ${email}; token stored in ${file}`);
  return 0;
}

/** Reads one line from the terminal; a password is not echoed. */
function prompt(question: string, secret: boolean): Promise<string> {
  if (!process.stdin.isTTY) throw new UsageError('no terminal to prompt on: pass --email and --password');
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  if (secret) {
    const write = (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput.bind(rl);
    (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = (s) => write(s.startsWith(question) ? question : '');
  }
  return new Promise((resolve) =>
    rl.question(question, (answer) => {
      rl.close();
      if (secret) process.stderr.write('\n');
      resolve(answer.trim());
    }),
  );
}
